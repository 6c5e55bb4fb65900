import Foundation
import RideStore

/// One `RecordingService` per user: a service caches recorders by recording id, so each user gets their own
/// and an id of another user's recording can never reach a cached recorder (it answers 404 from the store).
public actor RecordingServices {
    private let library: TrackLibrary
    private let metrics: ServerMetrics
    private var services: [UserID: RecordingService] = [:]

    public init(library: TrackLibrary, metrics: ServerMetrics = ServerMetrics()) {
        self.library = library
        self.metrics = metrics
    }

    /// The service of the request's user.
    func service(for context: some UserRequestContext) throws -> RecordingService {
        let library = try library.scoped(to: context)
        if let service = services[library.userID] { return service }
        let service = RecordingService(library: library, metrics: metrics)
        services[library.userID] = service
        return service
    }
}
