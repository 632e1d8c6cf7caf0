import Foundation

/// Loads the sample JSON files shipped with the example as resources.
enum SampleData {
    /// The contents of `SampleData/<name>.<extension>`; empty if the file is missing.
    static func load(_ name: String, extension fileExtension: String = "json") -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: fileExtension, subdirectory: "SampleData"),
            let data = try? Data(contentsOf: url)
        else {
            assertionFailure("missing sample data \(name).\(fileExtension)")
            return Data()
        }
        return data
    }
}
