/// The D-Bus policy handoff installs, byte for byte (`dbus-policy/org.handoff.Handoff1.conf`; a test checks that the
/// two agree), so `handoff doctor` can tell an installed copy that was changed.
public enum ShippedPolicy {
    /// Its text.
    public static let text = """
<!-- D-Bus system bus policy for the handoff daemon. Install as /etc/dbus-1/system.d/org.handoff.Handoff1.conf.

     Who may own the name: only the daemon's user. The daemon runs as root for now (it talks to BlueZ, whose
     own policy lets root register advertisements and GATT applications); when it moves to a dedicated user,
     change user="root" below and nothing else.
     Who may talk to it: any local user may call its methods and receive its signals. The daemon itself
     decides, per caller uid, what a caller may see (each user sees only their own activities). -->
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root">
    <allow own="org.handoff.Handoff1"/>
  </policy>

  <policy context="default">
    <deny own="org.handoff.Handoff1"/>
    <allow send_destination="org.handoff.Handoff1"/>
    <allow receive_sender="org.handoff.Handoff1"/>
  </policy>
</busconfig>

"""
}
