// swift-tools-version:6.0
import PackageDescription

// modgud-bff: a backend-for-frontend gateway for the Modgud identity server.
// No outside packages: the toolchain plus Debian's C libraries through
// systemLibrary targets. Dependencies point one way (see Docs/architecture.md).
// Nonisolated async functions run on their caller's executor (SE-0461), so
// a request's task stays on its event loop without a task switch per call.
// Not on HTTP: Swift 6.3.1 crashes type-checking HTTPTests with it there.
let onCallersExecutor: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "modgud-bff",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "modgud-bff", targets: ["modgud-bff"]),
        .executable(name: "modgud-sim", targets: ["modgud-sim"]),
    ],
    targets: [
        // C libraries, each imported by exactly one thin wrapper target.
        .systemLibrary(name: "CSystem", path: "Sources/CSystem"),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CHiredis", path: "Sources/CHiredis", pkgConfig: "hiredis",
                       providers: [.apt(["libhiredis-dev"])]),

        // Value types shared by every layer: Secret, IPAddress, CIDR.
        .target(name: "Core"),
        // Logs (JSON lines) and metrics (Prometheus text).
        .target(name: "Observability", dependencies: ["Core", "System"]),
        // File descriptors, sockets, the epoll event loops.
        .target(name: "System", dependencies: ["CSystem", "Core"]),
        // HTTP/1.1 messages for both sides: the shared types (HTTPHeaders, method,
        // status, version), the field grammar, the chunked-body decoder and the
        // message-length rules.
        .target(name: "HTTPCodec", dependencies: ["Core"]),
        // The HTTP/1.1 server: the strict request parser, connections, workers.
        // Re-exports HTTPCodec, whose types its API speaks.
        .target(name: "HTTP", dependencies: ["HTTPCodec", "System", "Core", "Observability"]),
        // OpenSSL: randomness, hashes, HKDF, AES-GCM, signatures.
        .target(name: "Crypto", dependencies: ["COpenSSL", "Core"]),
        // Redis through hiredis's async API, driven by the event loops.
        .target(name: "Redis", dependencies: ["CHiredis", "System", "Core", "Crypto"], swiftSettings: onCallersExecutor),
        // Upstream HTTP, driven by the event loops: its own HTTP/1.1 connections
        // for plain-http streams (the API proxy), libcurl's multi interface for the rest.
        .target(name: "HTTPClient", dependencies: ["CCurl", "System", "Core", "HTTPCodec"], swiftSettings: onCallersExecutor),
        // Sessions: the byte-store protocol, an in-memory store, sealing, the manager and cookie.
        .target(name: "Sessions", dependencies: ["Core", "Crypto"], swiftSettings: onCallersExecutor),
        // The Redis implementation of the session byte store.
        .target(name: "SessionsRedis", dependencies: ["Sessions", "Redis", "Core"], swiftSettings: onCallersExecutor),
        // The identity-server client: Modgud's endpoints, client authentication,
        // the forwarded address, and the classification of its answers.
        .target(name: "Modgud", dependencies: ["HTTPClient", "HTTPCodec", "Core", "Crypto"], swiftSettings: onCallersExecutor),
        // OpenID Connect tokens: JWS parsing, JWK Sets and their cache, and the
        // id_token and back-channel logout token checks (RS256 only). No I/O:
        // the key set arrives through an injected fetch.
        .target(name: "OIDC", dependencies: ["Core", "Crypto"]),
        // Settings from the environment and a JSON file, validated at once.
        .target(name: "Configuration", dependencies: ["Core", "CSystem", "System"]),
        // The web framework: router (built, then frozen), responders with an
        // optional fast path, middleware, request context, response errors.
        .target(name: "Routing", dependencies: ["HTTP", "Core", "Observability", "System"], swiftSettings: onCallersExecutor),
        // Token refresh: once per rotating refresh token across instances
        // (the lease lock, fencing, outcome-unknown marks, the failure memo,
        // outcome signals) behind the RefreshStore protocol, on an injected clock.
        .target(name: "TokenRefresh", dependencies: ["Sessions", "Modgud", "Core", "Crypto", "Observability"], swiftSettings: onCallersExecutor),
        // The Redis implementation of the refresh store.
        .target(name: "TokenRefreshRedis", dependencies: ["TokenRefresh", "Sessions", "SessionsRedis", "Redis"], swiftSettings: onCallersExecutor),
        // The product: endpoints, the API proxy, its middleware, admin listener.
        .target(name: "Gateway", dependencies: ["Routing", "HTTP", "Configuration", "Observability", "Core", "Modgud", "Sessions", "SessionsRedis", "TokenRefresh", "TokenRefreshRedis", "Redis", "HTTPClient", "System", "Crypto", "OIDC"], swiftSettings: onCallersExecutor),
        // WebAuthn: CBOR, COSE keys, attestation and assertion checks, and a
        // software authenticator (for the simulator and the tests).
        .target(name: "WebAuthn", dependencies: ["Crypto", "Core"]),
        // The bundled Modgud simulator: local runs, demos, tests, load tests. Never production.
        .target(name: "ModgudSimulator", dependencies: ["Routing", "HTTP", "HTTPClient", "System", "Core", "Crypto", "Observability", "WebAuthn"]),
        .executableTarget(name: "modgud-sim", dependencies: ["ModgudSimulator", "System", "Observability"]),
        .executableTarget(name: "modgud-bff", dependencies: ["Gateway", "Configuration", "Observability", "HTTP", "System"]),

        // Test helpers shared by the test targets: a raw loopback HTTP client, a seeded generator.
        .target(name: "TestSupport", dependencies: ["System", "HTTP", "Core"], path: "Tests/TestSupport"),
        .testTarget(name: "CoreTests", dependencies: ["Core", "TestSupport"]),
        .testTarget(name: "ObservabilityTests", dependencies: ["Observability"]),
        .testTarget(name: "SystemTests", dependencies: ["System", "TestSupport"]),
        .testTarget(name: "HTTPCodecTests", dependencies: ["HTTPCodec"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "System", "TestSupport"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"]),
        .testTarget(name: "RedisTests", dependencies: ["Redis", "System", "Core", "TestSupport"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPCodec", "HTTP", "System", "Core", "TestSupport"]),
        .testTarget(name: "SessionsTests", dependencies: ["Sessions", "SessionsRedis", "Redis", "System", "Core", "Crypto", "TestSupport"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", "Crypto", "Core"]),
        .testTarget(name: "ModgudSimulatorTests", dependencies: ["ModgudSimulator", "OIDC", "WebAuthn", "HTTP", "System", "Core", "Crypto", "TestSupport"]),
        .testTarget(name: "ModgudTests", dependencies: ["Modgud", "HTTPClient", "HTTP", "Core", "System", "TestSupport"]),
        .testTarget(name: "OIDCTests", dependencies: ["OIDC", "ModgudSimulator", "Crypto", "Core"]),
        .testTarget(name: "ConfigurationTests", dependencies: ["Configuration", "CSystem", "TestSupport"]),
        .testTarget(name: "RoutingTests", dependencies: ["Routing", "HTTP", "Observability", "System", "Core", "TestSupport"]),
        .testTarget(name: "TokenRefreshTests", dependencies: ["TokenRefresh", "TokenRefreshRedis", "Sessions", "SessionsRedis", "Redis", "Modgud", "HTTPClient", "Observability", "System", "Core", "Crypto", "TestSupport"]),
        .testTarget(name: "GatewayTests", dependencies: ["Gateway", "Routing", "HTTP", "Configuration", "System", "TestSupport", "Core", "Modgud", "Sessions", "SessionsRedis", "Redis", "TokenRefresh", "TokenRefreshRedis", "ModgudSimulator", "WebAuthn", "Crypto", "OIDC"]),
    ],
    swiftLanguageModes: [.v6]
)
