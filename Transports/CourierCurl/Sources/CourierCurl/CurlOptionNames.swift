// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl

/// The names of the libcurl options the transport sets, for errors that say which one libcurl
/// refused (its number alone, "option 98", tells a reader nothing).
enum CurlOptionNames {
    static func name(of option: CURLoption) -> String {
        switch option {
        case CURLOPT_ERRORBUFFER: "CURLOPT_ERRORBUFFER"
        case CURLOPT_URL: "CURLOPT_URL"
        case CURLOPT_PROTOCOLS_STR: "CURLOPT_PROTOCOLS_STR"
        case CURLOPT_NOSIGNAL: "CURLOPT_NOSIGNAL"
        case CURLOPT_FOLLOWLOCATION: "CURLOPT_FOLLOWLOCATION"
        case CURLOPT_ACCEPT_ENCODING: "CURLOPT_ACCEPT_ENCODING"
        case CURLOPT_BUFFERSIZE: "CURLOPT_BUFFERSIZE"
        case CURLOPT_HTTP_VERSION: "CURLOPT_HTTP_VERSION"
        case CURLOPT_PIPEWAIT: "CURLOPT_PIPEWAIT"
        case CURLOPT_CONNECTTIMEOUT_MS: "CURLOPT_CONNECTTIMEOUT_MS"
        case CURLOPT_PINNEDPUBLICKEY: "CURLOPT_PINNEDPUBLICKEY"
        case CURLOPT_CAINFO: "CURLOPT_CAINFO"
        case CURLOPT_HEADERFUNCTION: "CURLOPT_HEADERFUNCTION"
        case CURLOPT_HEADERDATA: "CURLOPT_HEADERDATA"
        case CURLOPT_WRITEFUNCTION: "CURLOPT_WRITEFUNCTION"
        case CURLOPT_WRITEDATA: "CURLOPT_WRITEDATA"
        case CURLOPT_SEEKFUNCTION: "CURLOPT_SEEKFUNCTION"
        case CURLOPT_SEEKDATA: "CURLOPT_SEEKDATA"
        case CURLOPT_OPENSOCKETFUNCTION: "CURLOPT_OPENSOCKETFUNCTION"
        case CURLOPT_OPENSOCKETDATA: "CURLOPT_OPENSOCKETDATA"
        case CURLOPT_PREREQFUNCTION: "CURLOPT_PREREQFUNCTION"
        case CURLOPT_PREREQDATA: "CURLOPT_PREREQDATA"
        case CURLOPT_HTTPGET: "CURLOPT_HTTPGET"
        case CURLOPT_NOBODY: "CURLOPT_NOBODY"
        case CURLOPT_CUSTOMREQUEST: "CURLOPT_CUSTOMREQUEST"
        case CURLOPT_UPLOAD: "CURLOPT_UPLOAD"
        case CURLOPT_UPLOAD_BUFFERSIZE: "CURLOPT_UPLOAD_BUFFERSIZE"
        case CURLOPT_READFUNCTION: "CURLOPT_READFUNCTION"
        case CURLOPT_READDATA: "CURLOPT_READDATA"
        case CURLOPT_INFILESIZE_LARGE: "CURLOPT_INFILESIZE_LARGE"
        case CURLOPT_HTTPHEADER: "CURLOPT_HTTPHEADER"
        default: "libcurl option \(option.rawValue)"
        }
    }

    /// Why libcurl refuses an option, in the words a reader can act on.
    static func reason(_ code: CURLcode) -> String {
        let message = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_UNKNOWN_OPTION, CURLE_NOT_BUILT_IN:
            return
                "\(message) (libcurl error \(code.rawValue)): this libcurl is older than 7.85 or was built without it"
        default:
            return "\(message) (libcurl error \(code.rawValue))"
        }
    }
}

#endif
