import Foundation
import Logging
import RideKit
@testable import RideServer
import RideStore
import ServiceLifecycle
import Testing

/// The store's notifications reach the live feed: a user's, and "look again, all of you" after the listening
/// connection came back. No database here: a store that hands out a stream the test feeds.
// The waits allow 600 s so that a slow machine never times them out; a lost wake-up fails in a minute instead.
@Suite(.timeLimit(.minutes(1))) struct LiveNotificationRelayTests {
    final class FakeSharedStore: MultiInstanceStore {
        let stream: AsyncStream<LiveNotification>
        let continuation: AsyncStream<LiveNotification>.Continuation

        init() { (stream, continuation) = AsyncStream.makeStream(of: LiveNotification.self) }

        func liveNotifications() -> AsyncStream<LiveNotification> { stream }
        func loginFailureCounter(limits: LoginLimits) -> any LoginFailureCounter { LoginRateLimiter(limits: limits) }
    }

    /// A view that read a version and has not parked yet is not missed by "everyone": every user's version moves,
    /// also a user the feed never heard of.
    @Test func notifyEveryoneWakesEveryViewAndMovesEveryVersion() async throws {
        let feed = LiveFeed()
        let anna = UserID("AAAAAAAA")!
        let bob = UserID("BBBBBBBB")!
        let annas = await feed.version(anna)
        let bobs = await feed.version(bob)
        async let waited = feed.wait(anna, after: annas, seconds: 600)
        try await Task.sleep(for: .milliseconds(100))
        await feed.notifyEveryone()
        #expect(await waited == true)
        #expect(await feed.version(bob) != bobs)
        #expect(await feed.wait(bob, after: bobs, seconds: 600) == true)
    }

    @Test func theRelayPassesTheStoresNotificationsToTheFeed() async throws {
        let store = FakeSharedStore()
        let feed = LiveFeed()
        let anna = UserID("AAAAAAAA")!
        let bob = UserID("BBBBBBBB")!
        let relay = LiveNotificationRelay(store: store, feed: feed, logger: Logger(label: "test"))
        let running = Task { try await relay.run() }
        let annas = await feed.version(anna)
        let bobs = await feed.version(bob)
        store.continuation.yield(.fixesStored(anna))
        #expect(await feed.wait(anna, after: annas, seconds: 600) == true)
        #expect(await feed.version(bob) == bobs)
        store.continuation.yield(.resumed)
        #expect(await feed.wait(bob, after: bobs, seconds: 600) == true)
        store.continuation.finish()
        try await running.value
    }
}
