/// What the provider tells plugins beyond the hooks' arguments, for Courier's own plugins.
package enum PluginNotification {
    /// `false` while `didReceive` and `process` run for a request that never reached the
    /// transport or stub (cancelled before it was sent), so that no `willSend` preceded them.
    @TaskLocal package static var requestWasSent = true
}
