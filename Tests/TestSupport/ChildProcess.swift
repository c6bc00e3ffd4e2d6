import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Starting test children (redis-server, gateway processes, nginx).
public enum ChildProcess {
    /// The child could not be started; `errno` is posix_spawn's answer.
    public struct SpawnError: Error, Sendable {
        public let errno: Int32
    }

    /// posix_spawn of `argv[0]` with an empty signal mask and default
    /// handlers: the calling thread (a Dispatch or cooperative thread) may
    /// block signals, and a child that inherits a blocked SIGTERM never
    /// stops (Foundation's `Process` has that problem).
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment (PATH is added);
    ///     nil passes this process's own.
    ///   - output: a file for standard output and error; nil discards both.
    ///   - errors: a file of its own for standard error; nil: with `output`.
    ///   - input: a file for standard input; nil reads `/dev/null`.
    public static func spawn(_ argv: [String], environment: [String: String]? = nil, output: String? = nil,
                             errors: String? = nil, input: String? = nil) throws(SpawnError) -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let result: Int32
        if var variables = environment {
            variables["PATH"] = variables["PATH"] ?? "/usr/bin:/bin"
            let cEnvironment = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { cEnvironment.forEach { free($0) } }
            result = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        } else {
            result = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environ)
        }
        guard result == 0 else { throw SpawnError(errno: result) }
        return pid
    }

    /// Waits for `pid` on the calling thread (it blocks: never call it on
    /// the cooperative pool from async code) and returns its exit status,
    /// or 128 plus the signal that ended it.
    public static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Reaps `pid` on a thread of its own (waitpid blocks, and must never
    /// run on the cooperative pool), then calls `exited`.
    public static func reap(_ pid: pid_t, exited: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "child-process.wait").async {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            exited()
        }
    }
}
