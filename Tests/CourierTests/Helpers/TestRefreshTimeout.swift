import Foundation

/// The refresh time-out of the sessions of tests that do not test the time-out: long enough
/// never to fire (a hang detector). The whole suite runs at once, sanitized and beside busy
/// loops in CI, where a refresh can wait minutes for a core; the default 30 seconds would then
/// fail requests that the test expects to succeed.
let testRefreshTimeout: TimeInterval = 600
