// The server's public API speaks the codec's types (`HTTPRequestHead.headers`,
// `HTTPResponse.status`), so a user of the server sees them with `import HTTP`.
@_exported import HTTPCodec
