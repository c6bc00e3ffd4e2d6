import Foundation
import Testing
@testable import Gateway

/// Small files are kept and answered on the loop without a task until
/// their revalidation is due; a changed file is served fresh after it;
/// large files are streamed, never kept.
@Suite("Static files: caching and large files")
struct StaticCachingTests {
    @Test("a small file is answered on the loop once read, and a HEAD too")
    func smallFilesOnTheLoop() async throws {
        let site = try await StaticSite.start { try $0.write("app.js", String(repeating: "a", count: 1024)) }
        let first = try await site.request("/app.js")
        #expect(first.status == 200 && first.body.count == 1024)
        let before = site.server.stats.answeredWithoutTask.load(ordering: .relaxed)
        for _ in 0..<3 { #expect(try await site.request("/app.js").body.count == 1024) }
        #expect(try await site.request("/app.js", method: "HEAD").body.isEmpty)
        #expect(try await site.request("/app.js", ["If-None-Match: \(first.header("ETag") ?? "")"]).status == 304)
        #expect(site.server.stats.answeredWithoutTask.load(ordering: .relaxed) - before == 5)
        await site.stop()
    }

    @Test("a refused path is answered on the loop too")
    func refusalsOnTheLoop() async throws {
        let site = try await StaticSite.start { _ in }
        let before = site.server.stats.answeredWithoutTask.load(ordering: .relaxed)
        #expect(try await site.request("/../outside/secret.txt").status == 404)
        #expect(site.server.stats.answeredWithoutTask.load(ordering: .relaxed) - before == 1)
        await site.stop()
    }

    @Test("a changed file is served as it was until the interval passes, then fresh, with a new ETag")
    func revalidation() async throws {
        let site = try await StaticSite.start(revalidate: .seconds(1)) { try $0.write("page.txt", "one") }
        let first = try await site.request("/page.txt")
        #expect(first.text == "one")
        try site.files.write("page.txt", "two, longer")
        #expect(try await site.request("/page.txt").text == "one", "kept: not checked before the interval")
        site.clock.advance(by: .milliseconds(1001))
        let fresh = try await site.request("/page.txt")
        #expect(fresh.text == "two, longer")
        #expect(fresh.header("ETag") != first.header("ETag"))
        #expect(try await site.request("/page.txt", ["If-None-Match: \(first.header("ETag") ?? "")"]).status == 200)

        try FileManager.default.removeItem(atPath: site.root + "/page.txt")
        site.clock.advance(by: .milliseconds(1001))
        #expect(try await site.request("/page.txt").status == 404, "a removed file is gone after the interval")
        try site.files.write("page.txt", "three")
        #expect(try await site.request("/page.txt").text == "three", "nothing kept for a missing file")
        await site.stop()
    }

    @Test("an unchanged file is confirmed by stat after the interval and is answered on the loop again")
    func unchangedStaysKept() async throws {
        let site = try await StaticSite.start(revalidate: .milliseconds(100)) { try $0.write("app.css", "body{}") }
        let first = try await site.request("/app.css")
        site.clock.advance(by: .milliseconds(150))
        let checked = try await site.request("/app.css")
        #expect(checked.header("ETag") == first.header("ETag"))
        let before = site.server.stats.answeredWithoutTask.load(ordering: .relaxed)
        #expect(try await site.request("/app.css").text == "body{}")
        #expect(site.server.stats.answeredWithoutTask.load(ordering: .relaxed) - before == 1)
        await site.stop()
    }

    @Test("interval 0: every request checks the file, none is answered from memory on the loop")
    func noKeeping() async throws {
        let site = try await StaticSite.start(revalidate: .zero) { try $0.write("a.txt", "a") }
        _ = try await site.request("/a.txt")
        try site.files.write("a.txt", "bb")
        let before = site.server.stats.answeredWithoutTask.load(ordering: .relaxed)
        #expect(try await site.request("/a.txt").text == "bb")
        #expect(site.server.stats.answeredWithoutTask.load(ordering: .relaxed) == before)
        await site.stop()
    }

    @Test("a large file is streamed whole, its siblings too, a HEAD has its length, a 304 its ETag")
    func largeFiles() async throws {
        let big = (0..<(300 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let site = try await StaticSite.start {
            try $0.write("video.bin", big)
            try $0.write("bundle.js", big)
            try $0.write("bundle.js.gz", Array(big.prefix(70 * 1024)))
        }
        let answer = try await site.request("/video.bin")
        #expect(answer.status == 200)
        #expect(answer.body == big)
        #expect(answer.header("Content-Length") == String(big.count))
        let head = try await site.request("/video.bin", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(big.count))
        let etag = try #require(answer.header("ETag"))
        #expect(try await site.request("/video.bin", ["If-None-Match: \(etag)"]).status == 304)
        let gz = try await site.request("/bundle.js", ["Accept-Encoding: gzip"])
        #expect(gz.body == Array(big.prefix(70 * 1024)) && gz.header("Content-Encoding") == "gzip")
        let before = site.server.stats.answeredWithoutTask.load(ordering: .relaxed)
        #expect(try await site.request("/video.bin").body.count == big.count)
        #expect(site.server.stats.answeredWithoutTask.load(ordering: .relaxed) == before, "a large file is never kept")
        await site.stop()
    }
}
