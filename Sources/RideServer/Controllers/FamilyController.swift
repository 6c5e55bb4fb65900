import Foundation
import Hummingbird
import RideKit
import RideStore

/// Family on one server (issue 23): a user shares their live position with other users of the same server.
/// - `POST /api/family` `{"user": NAME, "hours": 1–8760 or null}` → 201 `{user, since, expiresAt}` (null: until
///   revoked; sharing again with the same user replaces the expiry);
/// - `GET /api/family` → `{available, sharing: [{user, since, expiresAt}], sharedWithMe: [{user, since, expiresAt,
///   position: {latitude, longitude, time, accuracyMeters} or null, hidden}]}`: the members' latest positions as
///   the Live tab shows them, through each sharer's privacy zones (`hidden`: "hidden near a private place");
/// - `DELETE /api/family/{name}` → 204, or 404 when this user does not share with anyone of that name.
///
/// Family needs accounts: on a single-user server (accounts off) a share is 409 `family_needs_accounts`.
///
/// Names: an unknown name is 404, which says whether a user exists. Only a logged-in user can ask, and every
/// unknown name counts as a failed login would (`limiter`, keyed by the asking user and by their address): so
/// guessing names here is as slow as guessing passwords on the login form, and a known name is never a failure.
struct FamilyController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary
    /// Accounts on: more than one user can log in.
    let accountsRequired: Bool
    /// Failed lookups of names, counted as failed logins are.
    let limiter: any LoginFailureCounter

    struct NewFamilyShareRequest: Decodable {
        var user: String
        var hours: Double?
    }

    struct SharePayload: ResponseEncodable {
        var user: String
        var since: String
        var expiresAt: String?
    }

    struct PositionPayload: Encodable {
        var latitude: Double
        var longitude: Double
        var time: String
        var accuracyMeters: Double?
    }

    struct MemberPayload: Encodable {
        var user: String
        var since: String
        var expiresAt: String?
        var position: PositionPayload?
        var hidden: Bool
    }

    struct FamilyPayload: ResponseEncodable {
        /// False on a single-user server: there is no one to share with.
        var available: Bool
        var sharing: [SharePayload]
        var sharedWithMe: [MemberPayload]
        var hoursRange: [Double] = [FamilyShareRules.hoursRange.lowerBound, FamilyShareRules.hoursRange.upperBound]
    }

    func addRoutes(to router: Router<Context>) {
        router.get("api/family") { _, context in try await list(context) }
        router.post("api/family") { request, context in try await share(request, context) }
        router.delete("api/family/{name}") { _, context in try await revoke(context) }
    }

    static var needsAccounts: APIError {
        APIError(
            .conflict, code: "family_needs_accounts",
            message: "family sharing needs accounts: this server has one user. Start it with --accounts (or on a public address) and add users with `bikeride users add NAME`")
    }

    static func time(_ date: Date) -> String { GPXTime(date: date).rfc3339 }

    func list(_ context: Context) async throws -> FamilyPayload {
        let library = try self.library.scoped(to: context)
        guard accountsRequired else { return FamilyPayload(available: false, sharing: [], sharedWithMe: []) }
        let now = Date()
        let circle = try await library.mine.familyCircle(now: now)
        let members = try await library.familyMembers(now: now)
        return FamilyPayload(
            available: true,
            sharing: circle.sharing.map { SharePayload(user: $0.viewerName, since: Self.time($0.createdAt), expiresAt: $0.expiresAt.map(Self.time)) },
            sharedWithMe: members.map { member in
                MemberPayload(
                    user: member.share.sharerName, since: Self.time(member.share.createdAt), expiresAt: member.share.expiresAt.map(Self.time),
                    position: member.fix.map {
                        PositionPayload(latitude: $0.latitude, longitude: $0.longitude, time: Self.time($0.time), accuracyMeters: $0.accuracyMeters)
                    },
                    hidden: member.hidden)
            })
    }

    func share(_ request: Request, _ context: Context) async throws -> EditedResponse<SharePayload> {
        let library = try self.library.scoped(to: context)
        guard let body = try await request.decodeJSON(NewFamilyShareRequest.self, limit: 16 << 10) else {
            throw APIError.badRequest("bad_json", "the body is empty")
        }
        guard accountsRequired else { throw Self.needsAccounts }
        if let problem = FamilyShareRules.problem(hours: body.hours) { throw APIError.badRequest("invalid_value", problem) }
        // Counted before the name is looked up (as a login before its hash), settled after.
        let key = "family:" + library.userID.rawValue
        let address = context.remoteIPAddress
        let reservedAt = Date()
        if let wait = try await limiter.reserve(name: key, address: address, now: reservedAt) {
            throw AccountsController<Context>.tooManyAttempts(wait: wait, "too many unknown names; try again in \(wait) seconds")
        }
        do {
            let now = Date()
            let share = try await library.mine.shareFamily(
                with: body.user, expiresAt: try FamilyShareRules.expiresAt(hours: body.hours, now: now), now: now)
            // A known name is no failure, and forgets none.
            try? await limiter.settle(name: key, address: address, reservedAt: reservedAt, outcome: .notEvaluated)
            return EditedResponse(
                status: .created,
                response: SharePayload(user: share.viewerName, since: Self.time(share.createdAt), expiresAt: share.expiresAt.map(Self.time)))
        } catch RideStoreError.notFound(kind: "user", _) {
            try? await limiter.settle(name: key, address: address, reservedAt: reservedAt, outcome: .failed)
            throw APIError.notFound("no user of that name on this server")
        } catch {
            try? await limiter.settle(name: key, address: address, reservedAt: reservedAt, outcome: .notEvaluated)
            throw error
        }
    }

    func revoke(_ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let text = try context.parameters.require("name")
        let name = text.removingPercentEncoding ?? text
        guard try await library.mine.revokeFamilyShare(viewerName: name) else {
            throw APIError.notFound("you do not share your position with a user of that name")
        }
        return Response(status: .noContent)
    }
}
