"""An OpenAI-compatible endpoint that answers a prompt it has seen with the reply recorded for it,
and forwards any other to a model endpoint (the relay of ../shared/tools/relayllm.py, whose log
it reads).

    python3 scripts/relay_cache.py /tmp/q/log.jsonl 8392 http://127.0.0.1:8391/v1 [ONLY]

Point `evaluate verdicts --openai-base-url http://127.0.0.1:8392/v1` at it. A run of code that
sends the prompts of an earlier run gets that run's replies back at once (the model as if at
temperature 0), and only the prompts a change made new reach the model: a change to the rules in
code is measured in minutes, and a change that alters prompts costs only its new calls. Every
reply is still one the model wrote for exactly that prompt. Prints its hits and misses.

With ONLY, a recorded reply is served only to a prompt that contains ONLY ("You are planning"
serves the recorded plans and sends every judge prompt to the model): an A/B of a judge-prompt
change runs both arms on the same plans, their judges answered afresh by the same sessions, so
that neither arm keeps replies from sessions the other never met.
"""
import json, sys, time, threading, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
LOG, PORT, RELAY = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ONLY = sys.argv[4] if len(sys.argv) > 4 else ""
cache = {}
def key(req): return json.dumps(req.get("messages", []), sort_keys=True)
# A prompt asked twice (two runs at once, or a run stopped while its requests still waited) has
# two recorded replies: the first is served, and a replay of the other run differs from it by
# the model's sampling, not by the code. Say how many prompts that concerns.
repeated = 0
for l in open(LOG):
    d = json.loads(l)
    k = key(d["request"])
    repeated += k in cache and cache[k] != d["reply"]
    cache.setdefault(k, d["reply"])
print("cached", len(cache), f"({repeated} prompts with more than one reply: the first is served)", flush=True)
lock = threading.Lock(); stats = {"hit": 0, "miss": 0}
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def send(self, code, obj):
        b = json.dumps(obj).encode()
        self.send_response(code); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def do_GET(self):
        self.send(200, {"object": "list", "data": [{"id": "relay", "object": "model"}]})
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) or b"{}"
        req = json.loads(raw)
        k = key(req)
        with lock: content = cache.get(k)
        if ONLY and ONLY not in k:
            content = None
        if content is None:
            with lock: stats["miss"] += 1
            r = urllib.request.Request(RELAY + "/chat/completions", data=raw, headers={"Content-Type": "application/json"})
            body = urllib.request.urlopen(r, timeout=7200).read()
            out = json.loads(body)
            with lock: cache[k] = out["choices"][0]["message"]["content"]
            print("miss", stats, flush=True)
            return self.send(200, out)
        with lock: stats["hit"] += 1
        pc = sum(len(m.get("content") or "") for m in req.get("messages", []) if isinstance(m.get("content"), str))
        self.send(200, {"id": "chatcmpl-cache", "object": "chat.completion", "created": int(time.time()), "model": "relay",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": pc // 4, "completion_tokens": len(content) // 4, "total_tokens": pc // 4 + len(content) // 4}})
ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
