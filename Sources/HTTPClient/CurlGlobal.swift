import CCurl
import Synchronization

/// libcurl's process-wide setup, done once: `curl_global_init` must not
/// run twice at once, so the first client to start calls it under a lock.
/// It is never undone (`curl_global_cleanup` would break any other user).
enum CurlGlobal {
    private static let result = Mutex<Int32?>(nil)

    static func initialize() throws(HTTPClientError) {
        let code = result.withLock { code in
            if code == nil { code = Int32(curl_global_init(Int(CURL_GLOBAL_ALL)).rawValue) }
            return code!
        }
        guard code == Int32(CURLE_OK.rawValue) else { throw .other(code: Int(code)) }
    }
}
