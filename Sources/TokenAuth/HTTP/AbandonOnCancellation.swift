/// Runs `operation` in a task of its own and returns its result, or throws `CancellationError` as soon as the
/// calling task is cancelled, without waiting for `operation` to notice. The operation is cancelled as well;
/// whatever it returns later is dropped.
///
/// For work whose own cancellation is not prompt: FoundationNetworking's `URLSession.data(for:delegate:)` can
/// keep a cancelled transfer open until the server answers.
func abandoningOnCancellation<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let flight = Flight<T>()
    let worker = Task {
        do {
            flight.finish(.success(try await operation()))
        } catch {
            flight.finish(.failure(error))
        }
    }
    return try await withTaskCancellationHandler {
        try await flight.wait()
    } onCancel: {
        worker.cancel()
    }
}
