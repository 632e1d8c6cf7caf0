/// An error whose description Courier writes itself from parts that are never secret (file
/// names, the operating system's reason, numbers): quoted as it is, not passed through a
/// ``Redaction``, which would hide a reason after a path that names a token file.
protocol OwnWordsError: Error, CustomStringConvertible {}

extension TokenStoreError: OwnWordsError {}
extension TokenNotStored: OwnWordsError {}
extension TokenLeaseTimeout: OwnWordsError {}
extension RefreshTimeout: OwnWordsError {}
extension RefreshAbandoned: OwnWordsError {}
