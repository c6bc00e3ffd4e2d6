extension SettingDefinition {
    public static let redisMode = SettingDefinition(
        "BFF_REDIS_MODE", kind: .choice(RedisMode.allCases.map(\.rawValue)), default: .value("single"),
        summary: "How Redis is reached: `single` (BFF_REDIS_URL names the one server), `sentinel` (it lists the "
            + "sentinels) or `cluster` (it lists seed nodes of a Redis Cluster).")
    public static let redisURL = SettingDefinition(
        "BFF_REDIS_URL", kind: .url, default: .value("redis://127.0.0.1:6379/0"),
        summary: "Session store: `redis://` or `rediss://` (TLS) `[[user]:password@]host[:port][,host[:port]…][/db]`; "
            + "a list only in sentinel and cluster mode. The user and password are the data nodes'; the password is "
            + "percent-decoded and never printed.")
    public static let redisPasswordFile = SettingDefinition(
        "BFF_REDIS_PASSWORD_FILE", kind: .text, default: .unset,
        summary: "A file holding the data nodes' password (one trailing newline is dropped), instead of a password "
            + "in BFF_REDIS_URL.")
    public static let redisSentinelMaster = SettingDefinition(
        "BFF_REDIS_SENTINEL_MASTER", kind: .text, default: .unset,
        summary: "The master's name at the sentinels; required in sentinel mode, refused in the others.")
    public static let redisSentinelUsername = SettingDefinition(
        "BFF_REDIS_SENTINEL_USERNAME", kind: .text, default: .unset,
        summary: "The ACL user at the sentinels (sentinel mode); needs BFF_REDIS_SENTINEL_PASSWORD_FILE.")
    public static let redisSentinelPasswordFile = SettingDefinition(
        "BFF_REDIS_SENTINEL_PASSWORD_FILE", kind: .text, default: .unset,
        summary: "A file holding the sentinels' password (sentinel mode; one trailing newline is dropped).")
    public static let redisCAFile = SettingDefinition(
        "BFF_REDIS_CA_FILE", kind: .text, default: .unset,
        summary: "A PEM file of CA certificates that verify Redis's certificates, instead of the system's trust "
            + "store; only with `rediss://`. Verification is always on.")
    public static let redisCertFile = SettingDefinition(
        "BFF_REDIS_CERT_FILE", kind: .text, default: .unset,
        summary: "A client certificate (PEM) presented to Redis; only with `rediss://`, together with BFF_REDIS_KEY_FILE.")
    public static let redisKeyFile = SettingDefinition(
        "BFF_REDIS_KEY_FILE", kind: .text, default: .unset,
        summary: "The private key (PEM) of BFF_REDIS_CERT_FILE.")
    public static let redisTLSServerName = SettingDefinition(
        "BFF_REDIS_TLS_SERVER_NAME", kind: .text, default: .unset,
        summary: "The name sent as SNI and checked in every Redis certificate, instead of each node's own host; "
            + "only with `rediss://`.")
    public static let redisWaitReplicas = SettingDefinition(
        "BFF_REDIS_WAIT_REPLICAS", kind: .integer(0...16), default: .value("0"),
        summary: "Replicas that must acknowledge a new session or a rotated refresh token (`WAIT`) before the "
            + "answer goes out; 0 waits for none.")
    public static let redisWaitTimeout = SettingDefinition(
        "BFF_REDIS_WAIT_TIMEOUT_MS", kind: .integer(1...250), default: .value("100"),
        summary: "The timeout of that `WAIT`, in milliseconds; at most 250, half the gateway's Redis command timeout, "
            + "since `WAIT` holds its connection.")
}
