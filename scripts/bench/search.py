"""Full-text search on one host: the indexing rate (documents/s created through the batch API into a
class search is off for, and into one it is on for; and the rate of turning search on over documents
already stored), then the latency of search queries over N documents (default 100 000) of Chinese and
English text, one connection, p50/p99 per kind of query.

Usage: search.py BASE_URL LABEL [N]  (the app benchapp/benchkey/benchmaster of scripts/bench.sh)"""
import http.client, json, random, sys, time, urllib.parse

base, label = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
url = urllib.parse.urlsplit(base)
client_headers = {"X-LC-Id": "benchapp", "X-LC-Key": "benchkey", "Content-Type": "application/json"}
master_headers = dict(client_headers, **{"X-LC-Key": "benchmaster,master"})
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=600)


class Refused(Exception):
    pass


def request(method, path, body=None, headers=client_headers):
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = connection.getresponse()
    data = response.read()
    if response.status >= 300:
        raise Refused(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data)


# A fixed corpus: the same documents on every run and on both engines.
ENGLISH = ("search engine index query latency storage cloud function object user mobile game score player "
           "music movie travel coffee weather market office garden river mountain window camera battery "
           "network server client message photo video book library school teacher student doctor hospital "
           "kitchen recipe dinner breakfast holiday summer winter spring autumn football basketball tennis "
           "guitar piano concert ticket airport station train ticket hotel beach island forest desert").split()
CHINESE = ("可乐 咖啡 天气 旅行 音乐 电影 手机 游戏 搜索 引擎 数据 存储 云端 函数 用户 照片 视频 图书 学校 老师 "
           "学生 医生 医院 厨房 晚餐 早餐 假期 夏天 冬天 春天 秋天 足球 篮球 网球 吉他 钢琴 音乐会 机场 火车 "
           "酒店 海滩 岛屿 森林 沙漠 城市 北京 上海 广州 深圳 杭州 成都 市场 办公室 花园 河流 高山 窗户 相机 电池 "
           "网络 服务器 客户端 消息 价格 质量 服务 体验 朋友 家庭 工作 生活 学习 运动 健康 新闻 科技 汽车").split()
RARE = {False: "zephyrine", True: "量子纠缠"}  # each in one document in 1 000 (English, Chinese): recall is checkable


def document(i, rng):
    chinese = i % 2 == 0
    words = CHINESE if chinese else ENGLISH
    title = ("" if chinese else " ").join(rng.choice(words) for _ in range(4))
    body_words = [rng.choice(words) for _ in range(30)]
    if i % 1000 in (7, 8):
        body_words.insert(rng.randrange(len(body_words)), RARE[chinese])
    body = ("，" if chinese else " ").join(body_words)
    return {"title": title, "body": body, "n": i}


def create(class_name, start, stop, seed):
    """Creates documents start..stop-1 through /1.1/batch, 500 a request; returns documents/s."""
    rng = random.Random(seed)
    began = time.monotonic()
    for first in range(start, stop, 500):
        requests = [{"method": "POST", "path": f"/1.1/classes/{class_name}", "body": document(i, rng)}
                    for i in range(first, min(first + 500, stop))]
        answers = request("POST", "/1.1/batch", {"requests": requests})
        assert all("success" in a for a in answers), answers[:2]
    return (stop - start) / (time.monotonic() - began)


def search_on(class_name):
    began = time.monotonic()
    request("PUT", f"/1.1/search/classes/{class_name}", {"fields": ["title", "body"]}, headers=master_headers)
    return time.monotonic() - began


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


plain_count = min(count, 20000)
print(f"search ({label}), {count} documents of Chinese and English text (title, body; 30 words each):")
off_rate = create("SearchPlain", 0, plain_count, 1)
print(f"  create, search off            {off_rate:10.0f} documents/s  ({plain_count} documents)")
built = search_on("SearchPlain")
print(f"  turning search on over them   {plain_count / built:10.0f} documents/s  ({built:.1f} s)")
# Search is turned on for a class that exists: its first document is made before.
create("SearchText", 0, 1, 1)
search_on("SearchText")
on_rate = create("SearchText", 1, plain_count, 1)
print(f"  create, search on             {on_rate:10.0f} documents/s  ({plain_count} documents; "
      f"{on_rate / off_rate:.2f} of the rate with search off)")
if count > plain_count:
    rest_rate = create("SearchText", plain_count, count, 2)
    print(f"  create, search on, up to {count}  {rest_rate:7.0f} documents/s")

QUERIES = {
    "English term": ["coffee", "mountain", "battery", "library"],
    "Chinese word (2 chars)": ["可乐", "天气", "音乐", "北京"],
    "two terms (AND)": ["coffee AND mountain", "可乐 AND 北京"],
    "phrase": ['"search engine"', '"数据存储"'],
    "field query": ["title:coffee", "title:天气"],
    "prefix": ["moun*", "bask*"],
    "rare term (recall)": [RARE[False], RARE[True]],
    "order by field": ["coffee&order=-n"],
}
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 60
for kind, texts in QUERIES.items():
    times, hits, refused = [], [], None
    for turn in range(rounds):
        text = texts[turn % len(texts)]
        q, _, extra = text.partition("&")
        path = f"/1.1/search/select?clazz=SearchText&limit=20&q={urllib.parse.quote(q)}" + (f"&{extra}" if extra else "")
        began = time.monotonic()
        try:
            answer = request("GET", path)
        except Refused as error:
            refused = error  # a kind that fails is reported, and the others still run
            break
        times.append((time.monotonic() - began) * 1000)
        hits.append(answer.get("hits", 0))
    if refused:
        print(f"  query: {kind:24s} FAILED: {refused}")
        continue
    print(f"  query: {kind:24s} p50 {percentile(times, 50):7.2f} ms   p99 {percentile(times, 99):7.2f} ms   "
          f"hits {min(hits)}..{max(hits)}")
for chinese, word in RARE.items():
    expected = len([i for i in range(count) if i % 1000 == (8 if chinese else 7)])
    found = request("GET", f"/1.1/search/select?clazz=SearchText&limit=1&q={urllib.parse.quote(word)}")["hits"]
    print(f"  recall: '{word}' is in {expected} documents; search finds {found}")
