extension Response {
    /// Returns `self` if its status code is in `statusCodes`.
    ///
    /// - Throws: ``CourierError/statusCode(_:)`` otherwise.
    public func filter<R: RangeExpression>(statusCodes: R) throws(CourierError) -> Response
    where R.Bound == Int {
        guard statusCodes.contains(statusCode) else { throw .statusCode(rejected(accepting: statusCodes)) }
        return self
    }

    /// Returns `self` if its status code is `statusCode`.
    ///
    /// - Throws: ``CourierError/statusCode(_:)`` otherwise.
    public func filter(statusCode: Int) throws(CourierError) -> Response {
        try filter(statusCodes: statusCode...statusCode)
    }

    /// Returns `self` if its status code is 2xx.
    ///
    /// - Throws: ``CourierError/statusCode(_:)`` otherwise.
    public func filterSuccessfulStatusCodes() throws(CourierError) -> Response {
        try filter(statusCodes: 200...299)
    }

    /// Returns `self` if its status code is 2xx or 3xx.
    ///
    /// - Throws: ``CourierError/statusCode(_:)`` otherwise.
    public func filterSuccessfulStatusAndRedirectCodes() throws(CourierError) -> Response {
        try filter(statusCodes: 200...399)
    }
}
