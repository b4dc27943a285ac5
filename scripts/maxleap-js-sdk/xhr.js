// XMLHttpRequest over Node's http module: what the SDK's _ajax needs (open, setRequestHeader,
// send, readyState 4, status, responseText).
const http = require('http');
class XMLHttpRequest {
  constructor() { this.readyState = 0; this.headers = {}; this.withCredentials = false; }
  open(method, url) { this.method = method; this.url = url; this.readyState = 1; }
  setRequestHeader(name, value) { this.headers[name] = value; }
  send(data) {
    const url = new URL(this.url);
    const body = data == null ? null : Buffer.from(typeof data === 'string' ? data : String(data));
    const headers = Object.assign({}, this.headers);
    if (body) {
      headers['Content-Length'] = body.length;
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'text/plain;charset=UTF-8';
    }
    const req = http.request({ method: this.method, hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        this.status = res.statusCode;
        this.responseText = Buffer.concat(chunks).toString('utf8');
        this.readyState = 4;
        if (this.onreadystatechange) this.onreadystatechange();
      });
    });
    req.on('error', (e) => { this.status = 0; this.responseText = String(e); this.readyState = 4; if (this.onreadystatechange) this.onreadystatechange(); });
    if (body) req.write(body);
    req.end();
  }
}
module.exports = XMLHttpRequest;
