import Foundation
import Hummingbird
import RideKit
import RideStore

/// `/api/labels`: the names and colours that organise places (issue 10). A label's colour is `#RRGGBB`
/// (answered in upper case); deleting a label takes it off every place that carried it.
struct LabelsController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary

    static var maximumNameLength: Int { 100 }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get { _, context in
            let library = try library.scoped(to: context)
            return LabelListPayload(labels: try await library.mine.labels().map(LabelPayload.init))
        }
        group.post { request, context in try await create(request, context) }
        group.patch("{id}") { request, context in try await update(request, context) }
        group.delete("{id}") { request, context in try await delete(request, context) }
    }

    /// `POST /api/labels` `{name, colour}` → 201 with the label; 409 when the name is taken.
    func create(_ request: Request, _ context: Context) async throws -> EditedResponse<LabelPayload> {
        let library = try self.library.scoped(to: context)
        let body = try await PlacesController<Context>.decode(NewLabelRequest.self, request)
        let label = try await library.mine.createLabel(name: try Self.name(body.name), color: try Self.colour(body.colour))
        return EditedResponse(status: .created, response: LabelPayload(label))
    }

    /// `PATCH /api/labels/{id}` `{name?, colour?}`.
    func update(_ request: Request, _ context: Context) async throws -> LabelPayload {
        let library = try self.library.scoped(to: context)
        let id = try Self.labelID(try context.parameters.require("id"))
        let body = try await PlacesController<Context>.decode(LabelChangesRequest.self, request)
        let name = try body.name.map(Self.name)
        let colour = try body.colour.map(Self.colour)
        return LabelPayload(try await library.mine.updateLabel(id: id, name: name, color: colour))
    }

    /// `DELETE /api/labels/{id}`.
    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let id = try Self.labelID(try context.parameters.require("id"))
        guard try await library.mine.deleteLabel(id: id) else { throw APIError.notFound("no label with id \(id)") }
        return Response(status: .noContent)
    }

    static func labelID(_ text: String) throws -> LabelID {
        guard let id = LabelID(text) else { throw APIError.notFound("no label with id \(text)") }
        return id
    }

    static func name(_ text: String) throws -> String {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw APIError.badRequest("invalid_value", "name must not be empty") }
        guard name.count <= maximumNameLength else {
            throw APIError.badRequest("invalid_value", "name is longer than \(maximumNameLength) characters")
        }
        return name
    }

    /// `#` and six hex digits, nothing else (the store would also take them without `#`; the API is strict).
    static func colour(_ text: String) throws -> String {
        let hex = text.utf8.dropFirst()
        guard text.utf8.first == UInt8(ascii: "#"), hex.count == 6,
              hex.allSatisfy({ (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) })
        else { throw APIError.badRequest("invalid_value", "colour must be #rrggbb (six hex digits), not '\(text)'") }
        return text
    }
}
