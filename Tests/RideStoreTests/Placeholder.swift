import Testing
@testable import RideStore
@Test func placeholder() {}
