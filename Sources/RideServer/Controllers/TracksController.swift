import Hummingbird

/// `/api/tracks`: WAITING FOR RIDESTORE. Listing, uploading, reading, renaming, deleting and exporting tracks
/// all need the store; until it is wired in, every route answers 501 with a JSON error that says so, so that
/// the web app can show a clear message instead of failing obscurely.
struct TracksController<Context: RequestContext> {
    func addRoutes(to group: RouterGroup<Context>) {
        let notYet: @Sendable (Request, Context) async throws -> Response = { _, _ in
            throw APIError(.notImplemented, code: "store_unavailable", message: "saved tracks need the track store, which this server does not have yet")
        }
        group.get(use: notYet)
        group.post(use: notYet)
        group.get("{id}", use: notYet)
        group.patch("{id}", use: notYet)
        group.delete("{id}", use: notYet)
        group.get("{id}/profile", use: notYet)
    }
}
