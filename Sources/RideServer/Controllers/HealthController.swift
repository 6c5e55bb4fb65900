import Foundation
import Hummingbird

/// `GET /health` (is it up, and with what) and `GET /metrics` (Prometheus text).
struct HealthController<Context: RequestContext> {
    struct Health: ResponseEncodable {
        var status: String
        var version: String
        var storage: String
        var uptimeSeconds: Double
    }

    let metrics: ServerMetrics
    let storage: String
    let version: String
    let startedAt = Date()

    func addRoutes(to router: Router<Context>) {
        router.get("health") { _, _ in
            Health(status: "ok", version: version, storage: storage, uptimeSeconds: Date().timeIntervalSince(startedAt))
        }
        router.get("metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.prometheusText())))
        }
    }
}
