import Foundation
import Hummingbird
import RideKit
import RideStore

/// Privacy zones and the hidden ends of rides (issue 23), and the list of everything a user has shared:
/// - `GET /api/privacy-zones` → `{zones: [{id, latitude, longitude, radiusMeters, name}], hideEndsMeters}`;
/// - `POST /api/privacy-zones` `{latitude, longitude, radiusMeters, name?}` → 201 the zone (radius 100–2,000 m);
/// - `PATCH /api/privacy-zones` `{hideEndsMeters}` (0–1,600) → the settings;
/// - `DELETE /api/privacy-zones/{id}` → 204;
/// - `GET /api/shares` → `{shares: [{kind, token, url, targetId, name, createdAt, expiresAt}]}`: the links that
///   still work (places, live positions, rides), newest first; `DELETE /api/shares/{token or id}` revokes one. Tokens
///   are stored hashed, so the list carries no links.
struct PrivacyController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary

    struct ZonePayload: ResponseEncodable {
        var id: String
        var latitude: Double
        var longitude: Double
        var radiusMeters: Double
        var name: String?

        init(_ stored: StoredPrivacyZone) {
            id = stored.id.rawValue
            latitude = stored.zone.center.latitude
            longitude = stored.zone.center.longitude
            radiusMeters = stored.zone.radiusMeters
            name = stored.name
        }
    }

    struct SettingsPayload: ResponseEncodable {
        var zones: [ZonePayload]
        var hideEndsMeters: Double
        var radiusRange: [Double] = [PrivacyZone.radiusRange.lowerBound, PrivacyZone.radiusRange.upperBound]
        var hideEndsRange: [Double] = [PrivacyRules.hiddenEndRange.lowerBound, PrivacyRules.hiddenEndRange.upperBound]

        init(_ settings: PrivacySettings) {
            zones = settings.zones.map(ZonePayload.init)
            hideEndsMeters = settings.hiddenEndMeters
        }
    }

    struct NewZoneRequest: Decodable {
        var latitude: Double
        var longitude: Double
        var radiusMeters: Double
        var name: String?
    }

    struct SettingsRequest: Decodable {
        var hideEndsMeters: Double
    }

    struct ActiveSharePayload: Encodable {
        var kind: String
        /// What the store keeps of the token (its SHA-256): `DELETE /api/shares/{id}` revokes by it. The link itself
        /// is shown once, when made.
        var id: String
        var targetId: String
        var name: String?
        var createdAt: String
        var expiresAt: String?
    }

    struct SharesPayload: ResponseEncodable {
        var shares: [ActiveSharePayload]
    }

    func addRoutes(to router: Router<Context>) {
        router.get("api/privacy-zones") { _, context in
            let library = try self.library.scoped(to: context)
            return SettingsPayload(try await library.mine.privacySettings())
        }
        router.post("api/privacy-zones") { request, context in try await add(request, context) }
        router.patch("api/privacy-zones") { request, context in try await update(request, context) }
        router.delete("api/privacy-zones/{id}") { _, context in
            let library = try self.library.scoped(to: context)
            let text = try context.parameters.require("id")
            guard let id = PrivacyZoneID(text), try await library.mine.deletePrivacyZone(id: id) else {
                throw APIError.notFound("no privacy zone with id \(text.prefix(16))")
            }
            return Response(status: .noContent)
        }
        router.get("api/shares") { _, context in try await shares(context) }
    }

    func add(_ request: Request, _ context: Context) async throws -> EditedResponse<ZonePayload> {
        let library = try self.library.scoped(to: context)
        guard let body = try await request.decodeJSON(NewZoneRequest.self, limit: 16 << 10) else { throw APIError.badRequest("bad_json", "the body is empty") }
        let zone = PrivacyZone(center: Coordinate(latitude: body.latitude, longitude: body.longitude), radiusMeters: body.radiusMeters)
        let stored = try await library.mine.addPrivacyZone(zone, name: body.name)
        return EditedResponse(status: .created, response: ZonePayload(stored))
    }

    func update(_ request: Request, _ context: Context) async throws -> SettingsPayload {
        let library = try self.library.scoped(to: context)
        guard let body = try await request.decodeJSON(SettingsRequest.self, limit: 16 << 10) else { throw APIError.badRequest("bad_json", "the body is empty") }
        return SettingsPayload(try await library.mine.setHiddenEndMeters(body.hideEndsMeters))
    }

    func shares(_ context: Context) async throws -> SharesPayload {
        let library = try self.library.scoped(to: context)
        let shares = try await library.mine.activeShares(now: Date())
        return SharesPayload(shares: shares.map { share in
            ActiveSharePayload(
                kind: share.kind == "device" ? "live" : share.kind == "track" ? "ride" : share.kind, id: share.id,
                targetId: share.targetID.rawValue, name: share.targetName, createdAt: GPXTime(date: share.createdAt).rfc3339,
                expiresAt: share.expiresAt.map { GPXTime(date: $0).rfc3339 })
        })
    }
}
