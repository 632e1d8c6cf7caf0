import Foundation

/// The signed-in user, decoded from `GET /me`.
public struct Profile: Decodable, Equatable {
    public var name: String
    public var email: String
}

/// A post the user writes, sent as a JSON body.
public struct NewPost: Encodable {
    public var title: String
    public var body: String

    public init(title: String, body: String) {
        self.title = title
        self.body = body
    }
}
