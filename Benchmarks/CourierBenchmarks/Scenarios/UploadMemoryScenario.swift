/// Peak RSS for a 100 MiB multipart upload — from the transfers issue. The streaming
/// upload path is not on this branch yet, so nothing is measured and `upload_peak_rss_mib`
/// is left out of the JSON until it lands.
enum UploadMemoryScenario {
    static func notMeasured() -> ScenarioResult {
        var result = ScenarioResult()
        result.rows = [
            Row(
                scenario: "Large upload memory", metric: "peak RSS, 100 MiB multipart upload",
                measured: "not measured in this run (streaming uploads are not on this branch yet)")
        ]
        result.set("upload_peak_rss_mib_status", "not measured in this run")
        return result
    }
}
