import DBus
import FoundationEssentials
import HandoffBusContract
import HandoffClient

/// Connects the CLI to the daemon on a D-Bus bus: the system bus by default, or the one `HANDOFF_BUS_ADDRESS`
/// names (`system`, `session`, or an address such as `unix:path=/run/handoff-laptop/bus`).
public struct DBusServiceConnector: HandoffServiceConnector {
    /// The bus the daemon is expected on.
    public let bus: Connection.Bus

    /// A connector for `bus`.
    public init(bus: Connection.Bus) {
        self.bus = bus
    }

    /// The bus named by `HANDOFF_BUS_ADDRESS` in `environment`, else the system bus.
    public init(environment: [String: String]) {
        self.init(bus: Self.bus(named: environment["HANDOFF_BUS_ADDRESS"] ?? ""))
    }

    /// `system` (or empty), `session`, or an address.
    public static func bus(named text: String) -> Connection.Bus {
        // Foundation's `.whitespaces` (tab and the space separators), trimmed at both ends.
        let blank: (Character) -> Bool = {
            $0.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        let trimmed = text.drop(while: blank).reversed().drop(while: blank).reversed()
        switch String(trimmed) {
        case "", "system": return .system
        case "session": return .session
        case let address: return .address(address)
        }
    }

    /// Connects; throws ``ServiceError/Code/unreachable`` when the bus cannot be reached or no daemon owns the name.
    public func connect() async throws -> any HandoffService {
        let description = Self.describe(bus)
        let connection: Connection
        do {
            connection = try Connection(bus)
        } catch {
            throw ServiceError(.unreachable, "the handoff daemon is not reachable: \(error.message)")
        }
        let owner: BusName?
        do {
            owner = try await connection.owner(of: HandoffBusAPI.busName)
        } catch {
            throw ServiceErrorMapping.serviceError(error, bus: description)
        }
        guard owner != nil else {
            connection.close()
            throw ServiceError(.unreachable, "the handoff daemon is not reachable: nobody owns "
                + "\(HandoffBusAPI.busName) on \(description) (is handoffd running?)")
        }
        return DBusHandoffService(connection: connection, busDescription: description)
    }

    static func describe(_ bus: Connection.Bus) -> String {
        switch bus {
        case .system: return "the system bus"
        case .session: return "the session bus"
        case .address(let address): return "the bus at \(address)"
        }
    }
}
