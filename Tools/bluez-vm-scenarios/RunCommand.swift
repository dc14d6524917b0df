import Foundation
import ScenarioSupport

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command and returns its exit status (-1 if it could not start). Uses posix_spawn and waitpid directly:
/// Foundation's Process did not notice the exit of guest-bluez.sh inside the VM. Blocks the calling thread, so
/// call it from a detached task.
func runCommand(_ argv: [String]) -> Int32 {
    var pid: pid_t = 0
    var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    let spawned = posix_spawn(&pid, argv[0], nil, nil, &cArguments, environ)
    guard spawned == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 {
        if errno != EINTR { return -1 }
    }
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
}
