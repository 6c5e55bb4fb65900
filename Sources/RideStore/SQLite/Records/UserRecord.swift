import Foundation
import GRDB
import RideKit

/// A row of `user`.
struct UserRecord: Hashable {
    var id: UserID
    var name: String
    var passwordHash: String?
    var createdAt: Date
}

extension UserRecord: StoreRecord {
    static let databaseTableName = "user"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
    }

    init(_ user: User) {
        self.init(id: user.id, name: user.name, passwordHash: user.passwordHash, createdAt: user.createdAt)
    }

    var user: User { User(id: id, name: name, passwordHash: passwordHash, createdAt: createdAt) }
}
