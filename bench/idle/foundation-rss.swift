// bench/idle/run.sh's memory half (issue 12 §3, RSS at most 20 MB): the same few lines with all of Foundation
// (which loads ICU) and with FoundationEssentials only (built with -D ESSENTIALS); the script reads VmRSS of each
// once it printed "ready".
#if ESSENTIALS
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

let data = Data([1, 2, 3])
let url = URL(fileURLWithPath: "/tmp")
let json = try? JSONEncoder().encode(["handoff": data.count])
let environment = ProcessInfo.processInfo.environment.count
print("ready \(getpid()) \(url.path) \(json?.count ?? 0) \(environment > 0)")
fflush(stdout)
sleep(3)
