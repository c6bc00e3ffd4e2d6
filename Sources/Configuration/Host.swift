import CSystem
import System
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few things Configuration needs from the operating system, through
/// libc rather than Foundation: reading the `--config` file and counting
/// processors. Used once at start-up, so blocking calls are fine.
enum Host {
    /// Why a file could not be read: a phrase after "the file PATH".
    enum ReadProblem: Error, Equatable {
        case missing
        case unreadable
        case tooLarge(limit: Int)

        var phrase: String {
            switch self {
            case .missing: "does not exist"
            case .unreadable: "cannot be read"
            case .tooLarge(let limit): "is larger than \(limit) bytes"
            }
        }
    }

    /// The whole file, or why not; larger than `limit` bytes is refused.
    static func contents(of path: String, limit: Int) -> Result<[UInt8], ReadProblem> {
        WholeFile.read(atPath: path, limit: limit).mapError { problem in
            switch problem {
            case .missing: .missing
            case .unreadable: .unreadable
            case .tooLarge(let limit): .tooLarge(limit: limit)
            }
        }
    }

    /// Processors online: `sysconf(_SC_NPROCESSORS_ONLN)`, what Foundation's
    /// `ProcessInfo.activeProcessorCount` reports on Linux. At least 1.
    static var onlineProcessorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Processors the calling thread may run on (its affinity mask, as
    /// `taskset`, a container's `--cpuset-cpus` or systemd's `CPUAffinity=`
    /// set it), or those online where the mask cannot be read. At least 1.
    static var usableProcessorCount: Int {
        let count = Int(csystem_affinity_count())
        return count > 0 ? count : onlineProcessorCount
    }
}
