import Engine
import HTTP
import HTTPServer
import Rules
import Store

/// `GET /v1/admin/operations` and `DELETE /v1/admin/operations/{id}` (docs/api.md, "Operations").
extension API {
    func registerAdminOperations(in router: inout Router) {
        router.add(
            "GET", "/v1/admin/operations", scope: .admin,
            sync: { _ throws(APIError) in
                .json(.ok, JSONWriter.write(["operations": .array(engine.operationList.map(\.json))]), headers: ["Cache-Control": "no-store"])
            })
        router.add("DELETE", "/v1/admin/operations/{id}", scope: .admin) { request, sink in cancelOperation(request, sink) }
    }

    /// Cancels a pending delayed fire; answers `{operation, seq}` once the cancellation is logged.
    func cancelOperation(_ request: Request, _ sink: ResponseSink) {
        let id = request.parameter("id")
        engine.cancelOperation(id) { result in
            switch result {
            case .success(let (operation, seq)):
                sink.send(.json(.ok, JSONWriter.write(["operation": operation.json, "seq": .int(Int(clamping: seq))])))
            case .failure(.notFound):
                sink.send(
                    APIError(
                        .notFound, code: "operation_not_found", message: "no operation '\(id)' (pending fires are listed as fire-<n>)", field: "id"
                    )
                    .response)
            case .failure(.notCancellable(let operation)):
                var failure = APIError(
                    .conflict, code: "operation_not_cancellable",
                    message:
                        "operation '\(id)' is a \(operation.kind) in state \(operation.state.rawValue): only pending delayed fires can be cancelled",
                    field: "id")
                failure.details = operation.json
                sink.send(failure.response)
            case .failure(.store(let error)):
                sink.send(Self.storeError(error).response)
            }
        }
    }
}
