import Foundation
import Testing

@testable import S3Storage

/// The signing against the worked examples of AWS's SigV4 documentation for S3 (their keys,
/// date and signatures): a GET of a range, signed in its header, and a presigned GET.
@Suite struct SigV4Tests {
    let signer = SigV4(
        accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
    /// 2013-05-24T00:00:00Z.
    let date = Date(timeIntervalSince1970: 1_369_353_600)

    @Test func aRangedGetIsSignedInItsHeader() {
        let request = SigV4.Request(
            method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt", headers: [("Range", "bytes=0-9")])
        let headers = Dictionary(uniqueKeysWithValues: signer.headers(for: request, at: date))
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(headers["x-amz-content-sha256"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            headers["authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        // Host is the client's to send, from the URL.
        #expect(headers["host"] == nil)
    }

    @Test func aPresignedGetCarriesItsSignatureInTheQuery() {
        let query = signer.presignedQuery(host: "examplebucket.s3.amazonaws.com", path: "/test.txt", expiry: 86400, at: date)
        #expect(
            query
                == "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test func pathsAndQueriesAreEncodedAsSigV4Wants() {
        #expect(SigV4.encode(path: "app/files/a b+c~.txt") == "app/files/a%20b%2Bc~.txt")
        #expect(SigV4.canonicalQuery([("uploadId", "x/y="), ("partNumber", "2")]) == "partNumber=2&uploadId=x%2Fy%3D")
        #expect(SigV4.canonicalQuery([("uploads", "")]) == "uploads=")
    }

    @Test func settingsAddressTheBucketByPathOrByHost() throws {
        let path = try S3Settings(
            endpoint: "http://127.0.0.1:9000", region: "us-east-1", bucket: "files", prefix: "app/", accessKey: "a",
            secretKey: "s", pathStyle: true)
        #expect(path.host == "127.0.0.1:9000")
        #expect(path.path(ofKey: "k.png") == "/files/app/k.png")
        let virtual = try S3Settings(
            endpoint: "https://s3.us-east-1.amazonaws.com", region: "us-east-1", bucket: "files", accessKey: "a", secretKey: "s",
            pathStyle: false)
        #expect(virtual.host == "files.s3.us-east-1.amazonaws.com")
        #expect(virtual.url(path: virtual.path(ofKey: "k.png"), query: "") == "https://files.s3.us-east-1.amazonaws.com/k.png")
    }

    @Test(arguments: [
        ("ftp://host", "files", ""), ("http://", "files", ""), ("http://h/path", "files", ""), ("http://h", "Files", ""),
        ("http://h", "ab", ""), ("http://h", "files", "/abs"), ("http://h", "files", "a/../b"), ("http://h", "files", "a b"),
        ("http://h", "files", String(repeating: "p", count: 201)),
    ])
    func unusableSettingsAreRefused(endpoint: String, bucket: String, prefix: String) {
        #expect(throws: S3Error.self) {
            try S3Settings(
                endpoint: endpoint, region: "us-east-1", bucket: bucket, prefix: prefix, accessKey: "a", secretKey: "s",
                pathStyle: true)
        }
    }

    @Test func missingCredentialsAreRefused() {
        #expect(throws: S3Error.self) {
            try S3Settings(endpoint: "http://h", region: "us-east-1", bucket: "files", accessKey: "", secretKey: "", pathStyle: true)
        }
    }
}
