import Crypto
import DataAPI
import NIOCore

/// A file being uploaded to a bucket, hashed (MD5, LeanCloud's `_checksum`) as its bytes pass.
/// At most one part is held in memory: a file up to a part's size goes as one PutObject when it
/// is finished; a larger one becomes a multipart upload, each full part sent as it fills (the
/// client's body waits meanwhile), the last on `finish`. Nothing is visible under the key until
/// the upload completes; a failed or cancelled one is aborted, so no parts linger.
actor S3Upload: FileContentUpload {
    private let client: S3Client
    private let key: String
    private var pending: ByteBuffer
    private var md5 = Insecure.MD5()
    private var size = 0
    private var uploadId: String?
    private var etags: [String] = []
    private var isOpen = true

    init(client: S3Client, key: String) {
        self.client = client
        self.key = key
        pending = ByteBufferAllocator().buffer(capacity: 0)
    }

    func append(_ bytes: ByteBuffer) async throws(DataAPIError) {
        guard isOpen else { throw DataAPIError(.fileStoreFailure, "The upload was already finished.") }
        bytes.withUnsafeReadableBytes { md5.update(bufferPointer: $0) }
        size += bytes.readableBytes
        var bytes = bytes
        pending.writeBuffer(&bytes)
        while pending.readableBytes >= client.settings.partSize {
            let part = pending.readSlice(length: client.settings.partSize)!
            // What is left (less than a part) moves to a fresh buffer, so the sent part's
            // memory goes with it.
            var rest = ByteBufferAllocator().buffer(capacity: client.settings.partSize)
            rest.writeBuffer(&pending)
            pending = rest
            try await send(part)
        }
    }

    func finish() async throws(DataAPIError) -> StoredContent {
        guard isOpen else { throw DataAPIError(.fileStoreFailure, "The upload was already finished.") }
        if let uploadId {
            do throws(DataAPIError) {
                if pending.readableBytes > 0 { try await send(pending) }
            } catch {
                await cancel()
                throw error
            }
            do throws(S3Error) {
                try await client.completeMultipartUpload(key: key, uploadId: uploadId, etags: etags)
            } catch {
                await cancel()
                throw S3FileStore.mapped(error)
            }
        } else {
            do throws(S3Error) {
                try await client.put(key: key, body: pending)
            } catch {
                await cancel()
                throw S3FileStore.mapped(error)
            }
        }
        isOpen = false
        pending = ByteBuffer()
        return StoredContent(size: size, md5: StoredContent.hex(md5.finalize()))
    }

    func cancel() async {
        guard isOpen else { return }
        isOpen = false
        pending = ByteBuffer()
        if let uploadId { try? await client.abortMultipartUpload(key: key, uploadId: uploadId) }
    }

    /// Sends one part, starting the multipart upload with the first.
    private func send(_ part: ByteBuffer) async throws(DataAPIError) {
        do {
            let id: String
            if let uploadId {
                id = uploadId
            } else {
                id = try await client.createMultipartUpload(key: key)
                uploadId = id
            }
            etags.append(try await client.uploadPart(key: key, uploadId: id, number: etags.count + 1, body: part))
        } catch {
            throw S3FileStore.mapped(error)
        }
    }
}
