import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns an endpoint's sample response into the result a real request would have had.
enum StubResponder {
    static func respond(to request: URLRequest, endpoint: Endpoint) -> Result<Response, CourierError> {
        switch endpoint.sampleResponse() {
        case .networkResponse(let statusCode, let data):
            let url = request.url ?? URL(fileURLWithPath: "/")
            let httpResponse = HTTPURLResponse(
                url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: nil)
            return deliver(
                data, statusCode: statusCode, httpResponse: httpResponse, request: request, task: endpoint.task)
        case .response(let httpResponse, let data):
            return deliver(
                data, statusCode: httpResponse.statusCode, httpResponse: httpResponse, request: request,
                task: endpoint.task)
        case .networkError(let error):
            return .failure(CourierError(error))
        }
    }

    /// A stubbed download writes the sample data to its destination, so code under test finds
    /// the file where a real download would have put it.
    private static func deliver(
        _ data: Data, statusCode: Int, httpResponse: HTTPURLResponse?, request: URLRequest,
        task: RequestTask
    ) -> Result<Response, CourierError> {
        guard let destination = task.downloadDestination, let httpResponse else {
            return .success(
                Response(statusCode: statusCode, data: data, request: request, response: httpResponse))
        }
        do {
            let fileURL = try DownloadPlacement.place(data, response: httpResponse, destination: destination)
            return .success(
                Response(
                    statusCode: statusCode, data: Data(), request: request, response: httpResponse,
                    fileURL: fileURL))
        } catch {
            return .failure(.underlying(error, nil))
        }
    }
}
