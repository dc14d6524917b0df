/// Builds the introspection XML of a node, in the format `busctl introspect` and `gdbus introspect` read.
enum Introspection {
    static let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// The standard interfaces every exported object implements.
    static let standard = """
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg type="s" name="machine_uuid" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg type="s" name="xml_data" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="out"/>
            </method>
            <method name="GetAll">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="a{sv}" name="properties" direction="out"/>
            </method>
            <method name="Set">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg type="s" name="interface_name"/>
              <arg type="a{sv}" name="changed_properties"/>
              <arg type="as" name="invalidated_properties"/>
            </signal>
          </interface>

        """

    static let objectManager = """
          <interface name="org.freedesktop.DBus.ObjectManager">
            <method name="GetManagedObjects">
              <arg type="a{oa{sa{sv}}}" name="objects" direction="out"/>
            </method>
            <signal name="InterfacesAdded">
              <arg type="o" name="object_path"/>
              <arg type="a{sa{sv}}" name="interfaces_and_properties"/>
            </signal>
            <signal name="InterfacesRemoved">
              <arg type="o" name="object_path"/>
              <arg type="as" name="interfaces"/>
            </signal>
          </interface>

        """

    static func xml(for object: ExportedObject?, children: [String]) -> String {
        var xml = header + "<node>\n"
        if let object {
            xml += standard
            if object.isObjectManager { xml += objectManager }
            for interface in object.interfaces { append(interface, to: &xml) }
        } else {
            // An intermediate node: only introspection and its children.
            xml += """
                  <interface name="org.freedesktop.DBus.Introspectable">
                    <method name="Introspect">
                      <arg type="s" name="xml_data" direction="out"/>
                    </method>
                  </interface>

                """
        }
        for child in children { xml += "  <node name=\"\(escape(child))\"/>\n" }
        xml += "</node>\n"
        return xml
    }

    private static func append(_ interface: ExportedInterface, to xml: inout String) {
        xml += "  <interface name=\"\(interface.name)\">\n"
        for method in interface.methods {
            xml += "    <method name=\"\(method.name)\">\n"
            arguments(method.input, names: method.inputNames, direction: "in", to: &xml)
            arguments(method.output, names: method.outputNames, direction: "out", to: &xml)
            if method.noReply {
                xml += "      <annotation name=\"org.freedesktop.DBus.Method.NoReply\" value=\"true\"/>\n"
            }
            xml += "    </method>\n"
        }
        for signal in interface.signals {
            xml += "    <signal name=\"\(signal.name)\">\n"
            arguments(signal.signature, names: signal.argumentNames, direction: nil, to: &xml)
            xml += "    </signal>\n"
        }
        for property in interface.properties {
            xml += "    <property name=\"\(property.name)\" type=\"\(escape(property.type.description))\""
            xml += " access=\"\(property.access.rawValue)\"/>\n"
        }
        xml += "  </interface>\n"
    }

    private static func arguments(_ signature: Signature, names: [String], direction: String?, to xml: inout String) {
        for (index, type) in signature.types.enumerated() {
            xml += "      <arg type=\"\(escape(type.description))\""
            if index < names.count { xml += " name=\"\(escape(names[index]))\"" }
            if let direction { xml += " direction=\"\(direction)\"" }
            xml += "/>\n"
        }
    }

    /// Escapes the five XML special characters (signatures contain none today, argument names might).
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
