print("RefreshDemo: coming in the token-refresh issue")
