import Core
import System
#if canImport(Glibc)
import Glibc
#endif

extension ConfigLoader {
    /// BFF_LISTEN_MODE and BFF_LISTEN_GROUP, and that each `unix:`
    /// listener's directory exists; returns how to apply them.
    static func readListenSettings(_ reader: inout SettingReader, listen: ListenAddress?,
                                   adminListen: ListenAddress?) -> (inout GatewayConfig) -> Void {
        let mode = reader.value(.listenMode) { text -> Result<UInt32, ValueProblem> in
            guard !text.isEmpty, text.count <= 4, let bits = UInt32(text, radix: 8), bits <= 0o777 else {
                return .failure(ValueProblem("must be octal permission bits from 0000 to 0777, like 0660"))
            }
            guard bits & 0o200 != 0 else {
                return .failure(ValueProblem("must let the owner write (0600 at least): the gateway's own user owns the socket"))
            }
            return .success(bits)
        }
        let group = reader.value(.listenGroup) { text -> Result<String, ValueProblem> in
            Socket.groupID(text) == nil ? .failure(ValueProblem("names no group on this host")) : .success(text)
        }
        if let path = listen?.socketPath { checkSocketDirectory(path, .listen, &reader) }
        if let path = adminListen?.socketPath { checkSocketDirectory(path, .adminListen, &reader) }
        return { config in
            if let mode { config.listenMode = mode }
            config.listenGroup = group
        }
    }

    /// The directory that will hold a socket file must exist (systemd's
    /// `RuntimeDirectory=` makes it before the start).
    private static func checkSocketDirectory(_ path: String, _ setting: SettingDefinition, _ reader: inout SettingReader) {
        let directory = path.split(separator: "/").dropLast().joined(separator: "/")
        var info = stat()
        guard stat("/" + directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            reader.report(setting, "the directory /\(directory) of the socket does not exist")
            return
        }
    }
}
