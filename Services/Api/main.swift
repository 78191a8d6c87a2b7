import ApiKit
import Credentials
import Foundation
import HTTP
import Runtime
import ZeroMQ

// The REST API: HTTP on libmicrohttpd's threads, each request turned into bus commands signed as
// the app that called. It keeps no data; stopping it loses nothing.
let options = ApiOptions.parseOrExit(program: "api",
                                     summary: "PushBus REST API: EngageLab v4 and JPush v3 over HTTP, turned into signed bus commands.")
let logger = Logger(label: "api", level: options.logLevel)
OpenFileLimit.raiseToHardLimit()
do {
    try DataDirectory.prepare(options.dataDirectory, logger: logger)
    let secrets = try Secrets.load(directory: options.dataDirectory)
    let bus = try BusLink(endpoint: options.endpoint, secrets: secrets, serverKey: options.curveServerKey,
                          timeoutMilliseconds: options.requestTimeoutMilliseconds, slots: options.handlerThreads + options.edgeSlots,
                          edgeQueue: options.edgeQueue)
    let api = Api(secrets: secrets, bus: bus, quota: AppQuota(quota: options.appQuota, windowSeconds: options.quotaWindowSeconds),
                  logger: logger)
    let edge = DeviceEdge(bus: bus, settings: try options.edge(), logger: logger)
    let (host, port) = try options.address()
    let tls = try TLSIdentity.load(certificateFile: options.tlsCertificate, keyFile: options.tlsKey)
    // REST requests are answered on a pool of threads (each waits on its bus calls); device
    // requests are relayed without a thread (the bus loop answers them); the connections
    // themselves, however many or slow, are polled by the server's one loop thread.
    let pool = HandlerPool(name: "api-handler", threads: options.handlerThreads, queueLimit: options.queueLimit)
    let console = try Console(api: api, secrets: secrets, directory: options.consolePages(),
                              sessionMinutes: options.consoleSessionMinutes, secure: tls != nil || options.consoleSecureCookie,
                              trustedProxies: try options.edge().trustedProxies, logger: logger)
    let rest = pool.handler(busy: Api.busy) { request in
        Console.serves(request.path) ? console.handle(request) : api.handle(request)
    }
    let server = try HTTPServer(name: "api-http", host: host, port: Int(port), limits: options.limits, tls: tls) { request, responder in
        if DeviceEdge.serves(request.path) { edge.handle(request, responder) } else { rest(request, responder) }
    }
    logger.info("serving", ["listen": options.listen, "endpoint": options.endpoint, "tls": tls != nil, "max_connections": options.maxConnections,
                            "per_address": options.perAddress, "handler_threads": options.handlerThreads,
                            "console": options.consolePages() ?? "none"])
    let stopper = Stopper(context: try Context())
    try Lifecycle.serve(stopper: stopper, parentPID: options.parentPID, logger: logger) {
        let receiver = try stopper.makeReceiver()
        defer { receiver.close() }
        var poller = Poller([receiver])
        while !stopper.isRequested { _ = try poller.poll(timeout: 1000) }
    }
    server.stop()
    pool.stop()
    bus.stop()
    logger.info("stopped")
    exit(0)
} catch {
    logger.error("api failed", ["error": error])
    exit(1)
}
