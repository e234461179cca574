#if Collector
import Hummingbird
import NIOCore

/// A request's context in the collector: Hummingbird's, plus the peer's address (for the
/// per-address limit).
struct CollectorContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
#endif
