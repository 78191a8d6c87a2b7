import Credentials
import ZeroMQ

/// How one of PushBus's services reaches the others as a client of the gateway: the gateway's
/// `endpoint` and CURVE `serverKey`, the name the service signs its internal commands with
/// (`service`, a shard's included) and the deployment's `secrets`, from which it derives any app's
/// key. A value handed to a side loop, which makes its own clients from it on its own thread.
public struct GatewayAccess: Sendable {
    public let endpoint: String
    public let serverKey: String?
    public let service: String
    public let secrets: Secrets

    public init(endpoint: String, serverKey: String?, service: String, secrets: Secrets) {
        self.endpoint = endpoint
        self.serverKey = serverKey
        self.service = service
        self.secrets = secrets
    }

    /// A client that signs app-wide queries as the app and internal commands as the service.
    public func caller(context: Context, timeoutMilliseconds: Int = 10_000) throws -> ServiceCaller {
        try ServiceCaller(endpoint: endpoint, context: context, secrets: secrets, service: service, serverKey: serverKey,
                          timeoutMilliseconds: timeoutMilliseconds)
    }

    /// A pool of `slots` clients that sign as the service only.
    public func pool(context: Context, slots: Int, timeoutMilliseconds: Int) throws -> BusPool {
        try BusPool(endpoint: endpoint, context: context, signer: Signer(service: service, secrets: secrets), serverKey: serverKey,
                    slots: slots, timeoutMilliseconds: timeoutMilliseconds)
    }
}
