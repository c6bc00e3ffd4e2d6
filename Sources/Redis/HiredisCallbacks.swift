import CHiredis

// The C functions hiredis calls. Global functions, not closures: a
// `@convention(c)` function cannot capture, so each finds its
// `HiredisContext` through the opaque pointer in `ac->data` or `ev.data`,
// which holds the context's one `Unmanaged` retain (taken unretained here).

@inline(__always)
private func context(_ data: UnsafeMutableRawPointer?) -> HiredisContext? {
    data.map { Unmanaged<HiredisContext>.fromOpaque($0).takeUnretainedValue() }
}

/// The reply callback of ordinary commands; `reply` is NULL when the
/// context is being freed with the command unanswered.
func hiredisReplyCallback(_ ac: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?, _ privdata: UnsafeMutableRawPointer?) {
    context(ac?.pointee.data)?.didReceiveReply(reply?.assumingMemoryBound(to: redisReply.self))
}

/// The callback of `SUBSCRIBE`: called for its confirmation and then for
/// every message on the channel.
func hiredisPushCallback(_ ac: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?, _ privdata: UnsafeMutableRawPointer?) {
    context(ac?.pointee.data)?.didReceivePush(reply?.assumingMemoryBound(to: redisReply.self))
}

func hiredisAddRead(_ data: UnsafeMutableRawPointer?) { context(data)?.hookAddRead() }
func hiredisDelRead(_ data: UnsafeMutableRawPointer?) { context(data)?.hookDelRead() }
func hiredisAddWrite(_ data: UnsafeMutableRawPointer?) { context(data)?.hookAddWrite() }
func hiredisDelWrite(_ data: UnsafeMutableRawPointer?) { context(data)?.hookDelWrite() }
func hiredisCleanup(_ data: UnsafeMutableRawPointer?) { context(data)?.hookCleanup() }
