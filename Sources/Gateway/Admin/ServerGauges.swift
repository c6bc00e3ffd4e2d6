import HTTP
import Observability
import Synchronization

/// Copies each HTTP server's own counters into the metrics registry when
/// `/metrics` is scraped (the servers count with atomics on the hot path).
final class ServerGauges: Sendable {
    private struct Tracked {
        let name: String
        let server: HTTPServer
        var accepted = 0
        var rejected = 0
        var timeouts = 0
        var slowBodies = 0
        var refusedConnections = 0
    }

    private let open: Gauge
    private let accepted: Counter
    private let rejected: Counter
    private let timeouts: Counter
    private let slowBodies: Counter
    private let refusedConnections: Counter
    private let servers = Mutex<[Tracked]>([])

    init(metrics: MetricsRegistry) {
        open = metrics.gauge("bff_http_open_connections", help: "Connections open now, by listener.", labels: ["listener"])
        accepted = metrics.counter("bff_http_accepted_connections_total", help: "Connections accepted, by listener.", labels: ["listener"])
        rejected = metrics.counter("bff_http_rejected_requests_total",
                                   help: "Requests the parser refused before any handler ran, by listener.", labels: ["listener"])
        timeouts = metrics.counter("bff_http_timeouts_total",
                                   help: "Connections ended by a header, body, idle or write timeout, by listener.", labels: ["listener"])
        slowBodies = metrics.counter("bff_http_slow_bodies_total",
                                     help: "Request bodies cut off with 408 for falling behind BFF_BODY_MIN_RATE, by listener.",
                                     labels: ["listener"])
        refusedConnections = metrics.counter("bff_http_refused_connections_total",
                                             help: "Connections refused with 429 at accept: their address already held "
                                                 + "BFF_MAX_CONNECTIONS_PER_ADDRESS, by listener.", labels: ["listener"])
    }

    /// Adds `server` under the listener label `name`; its counters exist,
    /// at 0, from now on (a rate over them then counts the first event).
    func track(_ server: HTTPServer, as name: String) {
        for counter in [accepted, rejected, timeouts, slowBodies, refusedConnections] { counter.increment([name], by: 0) }
        open.set([name], to: 0)
        servers.withLock { $0.append(Tracked(name: name, server: server)) }
    }

    /// Brings the registry up to date with every tracked server.
    func update() {
        servers.withLock { servers in
            for index in servers.indices {
                let stats = servers[index].server.stats
                let name = servers[index].name
                open.set([name], to: Double(stats.openConnections.load(ordering: .relaxed)))
                Self.advance(accepted, name, &servers[index].accepted, stats.acceptedConnections.load(ordering: .relaxed))
                Self.advance(rejected, name, &servers[index].rejected, stats.rejectedRequests.load(ordering: .relaxed))
                Self.advance(timeouts, name, &servers[index].timeouts, stats.timeouts.load(ordering: .relaxed))
                Self.advance(slowBodies, name, &servers[index].slowBodies, stats.slowBodies.load(ordering: .relaxed))
                Self.advance(refusedConnections, name, &servers[index].refusedConnections,
                             stats.refusedConnections.load(ordering: .relaxed))
            }
        }
    }

    private static func advance(_ counter: Counter, _ name: String, _ seen: inout Int, _ now: Int) {
        if now > seen { counter.increment([name], by: Double(now - seen)) }
        seen = now
    }
}
