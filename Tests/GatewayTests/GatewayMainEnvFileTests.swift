import Foundation
import Testing
import TestSupport
@testable import Gateway

/// Every shipped environment file means the same to systemd's
/// `EnvironmentFile=` (read by `EnvironmentFile`, the test support's reader
/// of systemd's rules) and to bash's `set -a; . FILE; set +a`, says so at its
/// top, and passes `modgud-bff --check-config` read either way.
@Suite("modgud-bff executable: the shipped environment files", .serialized)
struct GatewayMainEnvFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `*.env` and `*.env.example` under Config/ and Deploy/, as repository paths.
    static let shippedFiles: [String] = ["Config", "Deploy"].flatMap { folder in
        let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)?
            .compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".env") || $0.hasSuffix(".env.example") }.map { "\(folder)/\($0)" }
    }.sorted()

    struct Sourced {
        var variables: [String: String]
        var status: Int32
        var errors: String
    }

    /// What bash exports after `set -a; . FILE; set +a`, started with an
    /// empty environment: its `BFF_` variables, exit status and standard error.
    static func sourced(_ path: String) async throws -> Sourced {
        let directory = NSTemporaryDirectory() + "env-file-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let out = directory + "/stdout", err = directory + "/stderr"
        let pid = try ChildProcess.spawn(["/bin/bash", "--noprofile", "--norc", "-c", #"set -a; . "$0"; set +a; exec env -0"#, path],
                                         environment: [:], output: out, errors: err)
        let status = await blocking { ChildProcess.waitForExit(pid) }
        let output = (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
        var variables: [String: String] = [:]
        for entry in output.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard text.hasPrefix("BFF_"), let equals = text.firstIndex(of: "=") else { continue }
            variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return Sourced(variables: variables, status: status, errors: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    /// Writes `text` to a temporary file, passes its path to `body`, and removes it.
    static func withFile<T>(_ text: String, _ body: (String) async throws -> T) async throws -> T {
        let path = NSTemporaryDirectory() + "env-file-\(UUID().uuidString).env"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// Both readings of `text`, and whether they agree (bash quiet and content too).
    static func readings(_ text: String) async throws -> (systemd: [String: String], shell: Sourced, agree: Bool) {
        let systemd = EnvironmentFile.systemd(text)
        let shell = try await withFile(text) { try await sourced($0) }
        return (systemd, shell, shell.status == 0 && shell.errors.isEmpty && shell.variables == systemd)
    }

    @Test func theShippedFilesAreFound() {
        #expect(Self.shippedFiles.contains("Config/modgud-bff.env.example"))
        #expect(Self.shippedFiles.contains("Deploy/traefik/modgud-bff.env"))
    }

    @Test(arguments: shippedFiles)
    func systemdAndAShellReadTheSameVariables(file: String) async throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        let (systemd, shell, agree) = try await Self.readings(text)
        #expect(!systemd.isEmpty && systemd.keys.allSatisfy { $0.hasPrefix("BFF_") })
        #expect(shell.status == 0 && shell.errors.isEmpty, "bash: \(shell.status) \(shell.errors)")
        for name in Set(systemd.keys).union(shell.variables.keys).sorted() {
            #expect(systemd[name] == shell.variables[name], "\(file): \(name)")
        }
        #expect(agree)
        // The examples left commented out read alike once uncommented.
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.wholeMatch(of: /# ?(BFF_[A-Z0-9_]+=.*)/).map { String($0.output.1) } ?? String(line)
        }.joined(separator: "\n")
        if file.hasPrefix("Config/") { #expect(uncommented != text, "the template's commented examples were found") }
        let examples = try await Self.readings(uncommented)
        #expect(examples.agree, "\(file) uncommented: \(examples.shell.errors)")
        // The top says which readers take the file.
        let header = text.split(separator: "\n").prefix { $0.hasPrefix("#") }.joined(separator: "\n")
        #expect(header.contains("EnvironmentFile=") && header.contains("set -a; ."), "\(file)'s opening comment")
    }

    @Test(arguments: shippedFiles)
    func checkConfigAcceptsTheFileReadEitherWay(file: String) async throws {
        let path = Self.root.appendingPathComponent(file).path
        let systemd = EnvironmentFile.systemd(try String(contentsOfFile: path, encoding: .utf8))
        // Secrets come from a secret store (a second EnvironmentFile), never the file.
        let secrets = systemd["BFF_CLIENT_ID"] == nil ? [:] : ["BFF_CLIENT_SECRET": "from-the-secret-store"]
        let bySystemd = try await GatewayMainTests.run(["--check-config"], environment: systemd.merging(secrets) { $1 })
        let byShell = try await GatewayMainTests.run(["--check-config"], environment: secrets, launcher: [
            "/bin/bash", "--noprofile", "--norc", "-c", #"set -a; . "$0"; set +a; exec "$@""#, path,
        ])
        #expect(bySystemd.status == 0, "\(file) read as systemd does: \(bySystemd.stderr)")
        #expect(byShell.status == 0, "\(file) sourced by bash: \(byShell.stderr)")
        #expect(bySystemd.stdout.hasPrefix("configuration ok"))
        #expect(byShell.stdout == bySystemd.stdout, "the same configuration both ways")
        #expect(!(bySystemd.stdout + byShell.stdout).contains("from-the-secret-store"))
    }

    /// The check can fail: JSON and a blank unquoted, as the files were
    /// once written, read differently (bash strips the quotes and runs
    /// `profile` as a command).
    @Test func unquotedJSONAndBlanksReadDifferently() async throws {
        let text = """
            BFF_ROUTES=[{"prefix":"/api/","upstream":"http://127.0.0.1:9/","token":"none"}]
            BFF_SCOPES=openid profile
            """
        let (systemd, shell, agree) = try await Self.readings(text)
        #expect(!agree)
        #expect(systemd["BFF_ROUTES"] == #"[{"prefix":"/api/","upstream":"http://127.0.0.1:9/","token":"none"}]"#)
        #expect(shell.variables["BFF_ROUTES"] == "[{prefix:/api/,upstream:http://127.0.0.1:9/,token:none}]")
        #expect(systemd["BFF_SCOPES"] == "openid profile" && shell.variables["BFF_SCOPES"] == nil)
        #expect(shell.errors.contains("profile"))
    }

    @Test("the reader follows systemd's rules", arguments: [
        (#"A='x "y" $z \n'"#, #"x "y" $z \n"#),
        (#"A="a\"b\\c\$d\e\`""#, #"a"b\c$d\e`"#),
        ("A=  a  b  \t", "a  b"),
        (#"A=a\ b\\"#, #"a b\"#),
        ("A=x # not a comment", "x # not a comment"),
        ("A='two\nlines'", "two\nlines"),
        ("A=one\\\ncontinued", "onecontinued"),
        ("A='a' \"b\"c", "abc"),
        ("A=", ""),
        ("A=1\nA=2", "2"),
        ("; A=commented\n  # A=commented\nA=kept", "kept"),
    ])
    func readerRules(text: String, value: String) {
        #expect(EnvironmentFile.systemd(text) == ["A": value], "\(text)")
    }

    @Test func namesThatAreNotVariablesAreDropped() {
        #expect(EnvironmentFile.systemd("export A=1\n1A=2\nA B=3\nno equals sign\nA =4").keys.sorted() == ["A"])
        #expect(EnvironmentFile.systemd("A =4")["A"] == "4")
    }
}
