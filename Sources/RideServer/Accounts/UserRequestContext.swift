import Foundation
import Hummingbird
import RideStore

/// A request context that knows whose request it is. Every controller that reaches someone's data is generic
/// over it and asks the library for that user's view (`TrackLibrary.scoped(to:)`), so that the store — where
/// every query is scoped by owner — only ever sees the requesting user's id.
public protocol UserRequestContext: RequestContext {
    /// The user the request acts for; nil before `AuthenticationMiddleware` ran, or on a public route.
    var userID: UserID? { get set }
    /// The client's IP address, when known: the peer's, or the one a trusted proxy forwarded for
    /// (`RequestGuardMiddleware`).
    var remoteIPAddress: String? { get set }
    /// The scheme the client used: `https` with TLS here or at a trusted proxy, else `http`.
    var clientScheme: String { get set }
}

extension UserRequestContext {
    /// The user, or a 401 when the request has none (a route that should have been behind the middleware).
    func requireUser() throws -> UserID {
        guard let userID else { throw APIError.unauthorized }
        return userID
    }
}

extension TrackLibrary {
    /// The library as the request's user sees it. Only the local user (the library's own) keeps the documents
    /// folder: it is one folder on the server's disk, not a per-user one.
    func scoped(to context: some UserRequestContext) throws -> TrackLibrary {
        let id = try context.requireUser()
        if id == userID { return self }
        return TrackLibrary(store: store, userID: id, documentsFolder: nil, uploadsFolder: uploadsFolder, limits: limits)
    }
}

extension APIError {
    /// No session or token: 401 (the web app then shows its login page).
    static var unauthorized: APIError { APIError(.unauthorized, code: "unauthorized", message: "log in first (no valid session or token)") }
}
