import Foundation
import Testing
@testable import System
#if canImport(Glibc)
import Glibc
#endif

/// A Unix-domain listener's file: its mode and group before the first
/// accept, a stale socket replaced, anything else left alone.
@Suite("Unix-domain socket listener")
struct UnixSocketListenerTests {
    /// A fresh directory for one test's socket files, removed by `remove()`.
    struct Directory {
        let path = NSTemporaryDirectory() + "bff-unix-\(UUID().uuidString.prefix(8))"
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    static func info(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    @Test func theFileGetsItsModeAndGroupAndIsASocket() throws {
        let directory = try Directory()
        defer { directory.remove() }
        let path = directory.path + "/public.sock"
        // Root may give the file any group; anyone else one of its own.
        let group = getuid() == 0 ? UInt32(33) : UInt32(getgid())
        let (fd, identity) = try Socket.listen(on: UnixSocketFile(path: path, mode: 0o640, group: group))
        defer { Socket.close(fd) }
        let info = try #require(Self.info(path))
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o640)
        #expect(info.st_gid == group)
        #expect(info.st_uid == getuid(), "the owner is the process's user")
        Socket.removeSocketFile(path, identity: identity)
        #expect(Self.info(path) == nil, "removed at shutdown")
    }

    @Test func aStaleSocketIsReplacedButALiveOneIsNot() throws {
        let directory = try Directory()
        defer { directory.remove() }
        let path = directory.path + "/public.sock"
        let first = try Socket.listen(on: UnixSocketFile(path: path))
        #expect(throws: SystemError("bind \(path)", errno: EADDRINUSE), "a listener is still there") {
            _ = try Socket.listen(on: UnixSocketFile(path: path))
        }
        // The process that made it is gone: the file stays, nobody listens.
        Socket.close(first.fd)
        #expect(Self.info(path) != nil)
        // The kernel may hand the next file the same inode; its change time
        // (coarse, a few milliseconds) tells them apart.
        usleep(20_000)
        let second = try Socket.listen(on: UnixSocketFile(path: path))
        defer { Socket.close(second.fd) }
        #expect(second.identity != first.identity, "a new socket file")
        // The first listener's shutdown leaves its successor's file alone.
        Socket.removeSocketFile(path, identity: first.identity)
        #expect(Self.info(path) != nil)
        Socket.removeSocketFile(path, identity: second.identity)
        #expect(Self.info(path) == nil)
    }

    @Test func anotherKindOfFileIsNeverReplaced() throws {
        let directory = try Directory()
        defer { directory.remove() }
        let path = directory.path + "/public.sock"
        try "keep me".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: SystemError.self) { _ = try Socket.listen(on: UnixSocketFile(path: path)) }
        do {
            _ = try Socket.listen(on: UnixSocketFile(path: path))
        } catch {
            #expect(error.errno == EEXIST)
            #expect(error.description.contains("is not a socket"))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
        try FileManager.default.createDirectory(atPath: directory.path + "/dir.sock", withIntermediateDirectories: false)
        #expect(throws: SystemError.self) { _ = try Socket.listen(on: UnixSocketFile(path: directory.path + "/dir.sock")) }
        #expect(FileManager.default.fileExists(atPath: directory.path + "/dir.sock"))
    }

    @Test func aPathLongerThanSunPathIsRefused() {
        let path = "/tmp/" + String(repeating: "s", count: UnixSocketFile.maxPathBytes)
        #expect(throws: SystemError("bind \(path)", errno: ENAMETOOLONG)) { _ = try Socket.listen(on: UnixSocketFile(path: path)) }
    }

    @Test func groupsAreFoundByNameOrNumber() {
        #expect(Socket.groupID("root") == 0)
        #expect(Socket.groupID("0") == 0)
        #expect(Socket.groupID("4242") == 4242, "a number is taken as it is")
        #expect(Socket.groupID("no-such-group-\(UUID().uuidString.prefix(6))") == nil)
    }
}
