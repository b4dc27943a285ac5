import Crypto
import DataAPI
import Logging
import NIOCore

/// A file being uploaded to a bucket, hashed (MD5, LeanCloud's `_checksum`) as its bytes pass.
/// A part gathers in a spool file on disk, never in memory (`SpoolFile`): a file up to a part's
/// size goes as one PutObject when it is finished; a larger one becomes a multipart upload, each
/// full part sent as it fills (the client's body waits meanwhile), the last on `finish`. Nothing
/// is visible under the key until the upload completes; a failed or cancelled one is aborted, so
/// no parts linger (an abort that fails is logged: the bucket keeps its parts until its own
/// lifecycle rule drops them).
actor S3Upload: FileContentUpload {
    private let client: S3Client
    private let key: String
    private let logger: Logger
    private let spool: SpoolFile
    /// The bytes in the spool file, and their SHA-256 (the part's signed payload hash).
    private var partLength = 0
    private var partHash = SHA256()
    private var md5 = Insecure.MD5()
    private var size = 0
    private var uploadId: String?
    private var etags: [String] = []
    private var isOpen = true

    init(client: S3Client, key: String, spool: SpoolFile, logger: Logger) {
        self.client = client
        self.key = key
        self.spool = spool
        self.logger = logger
    }

    func append(_ bytes: ByteBuffer) async throws(DataAPIError) {
        guard isOpen else { throw DataAPIError(.fileStoreFailure, "The upload was already finished.") }
        bytes.withUnsafeReadableBytes { pointer in
            md5.update(bufferPointer: pointer)
            partHash.update(bufferPointer: pointer)
        }
        try spool.append(bytes)
        size += bytes.readableBytes
        partLength += bytes.readableBytes
        // A part may pass the part size by what one append brought: S3 only asks parts to be
        // at least 5 MB (the last excepted).
        if partLength >= client.settings.partSize { try await sendPart() }
    }

    func finish() async throws(DataAPIError) -> StoredContent {
        guard isOpen else { throw DataAPIError(.fileStoreFailure, "The upload was already finished.") }
        if let uploadId {
            do throws(DataAPIError) {
                if partLength > 0 { try await sendPart() }
            } catch {
                await cancel()
                throw error
            }
            do throws(S3Error) {
                try await client.completeMultipartUpload(key: key, uploadId: uploadId, etags: etags)
            } catch {
                await cancel()
                throw S3FileStore.mapped(error, logger: logger)
            }
        } else {
            do throws(S3Error) {
                try await client.put(key: key, body: takePart())
            } catch {
                await cancel()
                throw S3FileStore.mapped(error, logger: logger)
            }
        }
        isOpen = false
        return StoredContent(size: size, md5: StoredContent.hex(md5.finalize()))
    }

    func cancel() async {
        guard isOpen else { return }
        isOpen = false
        guard let uploadId else { return }
        do throws(S3Error) {
            try await client.abortMultipartUpload(key: key, uploadId: uploadId)
        } catch {
            logger.warning(
                "An abandoned multipart upload could not be aborted; its parts stay in the bucket until a lifecycle rule removes them",
                metadata: ["key": .string(key), "uploadId": .string(uploadId), "error": .string(error.message)])
        }
    }

    /// The gathered part as a request body; the spool starts over once it is sent.
    private func takePart() -> S3Client.Payload {
        let payload = S3Client.Payload.spooled(
            spool, length: partLength, sha256: StoredContent.hex(partHash.finalize()))
        partHash = SHA256()
        return payload
    }

    /// Sends the gathered part, starting the multipart upload with the first.
    private func sendPart() async throws(DataAPIError) {
        do throws(S3Error) {
            let id: String
            if let uploadId {
                id = uploadId
            } else {
                id = try await client.createMultipartUpload(key: key)
                uploadId = id
            }
            etags.append(try await client.uploadPart(key: key, uploadId: id, number: etags.count + 1, body: takePart()))
        } catch {
            throw S3FileStore.mapped(error, logger: logger)
        }
        partLength = 0
        try spool.clear()
    }
}
