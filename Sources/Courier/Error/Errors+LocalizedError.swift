import Foundation

// Every public error is readable through `localizedDescription`: without `LocalizedError`,
// Foundation answers "The operation could not be completed. (Courier.TokenStoreError error 2.)".
// Their `description`s are clauses, written to be nested in a ``CourierError`` description;
// `errorDescription` makes each a sentence of its own. (`TokenStoreError`'s description is a
// sentence already: Storage/TokenStoreError.swift.)

extension RefreshTimeout: LocalizedError {
    /// The ``description`` as a sentence.
    public var errorDescription: String? { ErrorText.sentence(description) }
}

extension MultipartEncodingFailure: LocalizedError {
    /// The ``description`` as a sentence.
    public var errorDescription: String? { ErrorText.sentence(description) }
}

extension ParameterEncodingFailure: LocalizedError {
    /// The ``description`` as a sentence.
    public var errorDescription: String? { ErrorText.sentence(description) }
}

extension JSONKeyPath.Failure: LocalizedError {
    var errorDescription: String? { ErrorText.sentence(description) }
}

extension TransferDirectory.FileCreationFailure: LocalizedError {
    /// The ``description`` as a sentence.
    public var errorDescription: String? { ErrorText.sentence(description) }
}
