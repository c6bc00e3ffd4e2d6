"""The processes behind the demo app's browser tests: redis-server, modgud-sim,
the gateway (a debug build) and nginx serving Deploy/demo and forwarding /bff/
to the gateway, all on loopback in a temporary directory.

Over plain HTTP (http://localhost:PORT, a secure context for cookies and
WebAuthn) nginx gets a small file of its own, with the security headers the
gateway's static files will carry. Over TLS it runs Deploy/nginx/modgud-bff.conf
with only the site-specific lines (Deploy/nginx/README.md) rewritten: the
port, the certificate paths, the root, the gateway's TCP address, and the pid,
log and temp paths.
"""
import base64
import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

from browserlib import free_port, post_json, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "Deploy" / "demo"
SHIPPED_NGINX = ROOT / "Deploy" / "nginx" / "modgud-bff.conf"

# The headers of the demo's pages: no inline script or style, no framing, no referrer.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
PAGE_HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Permissions-Policy": "publickey-credentials-get=(self), publickey-credentials-create=(self)",
}


class Stack:
    """Starts everything on enter, stops it on exit; `origin` is the front end's."""

    def __init__(self, binaries: Path, tls: bool = False, sim_config: dict | None = None, static: bool = False):
        self.binaries = binaries
        self.tls = tls
        self.static = static   # the gateway serves Deploy/demo itself (BFF_STATIC_ROOT), no nginx
        self.sim_config = sim_config   # a POST /dev/config patch applied before the gateway starts
        self.work = Path(tempfile.mkdtemp(prefix="bff-demo-"))
        self.work.chmod(0o755)
        self.processes: list[subprocess.Popen] = []
        self.redis_port, self.sim_port, self.gateway_port, self.admin_port, self.front_port = \
            (free_port() for _ in range(5))
        self.origin = f"{'https' if tls else 'http'}://localhost:{self.front_port}"
        self.sim = f"http://127.0.0.1:{self.sim_port}"
        self.spki = None   # base64 SHA-256 of the certificate's public key, over TLS

    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()

    def _spawn(self, argv, name, env=None):
        log = open(self.work / f"{name}.log", "w")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.work)
        self.processes.append(process)
        return process

    def _start(self):
        # The pages go where nginx's workers (user nobody when run as root) can read them.
        www = self.work / "www"
        shutil.copytree(DEMO, www)
        for path in [www, *www.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        redis = self._spawn(["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(self.work)], "redis")
        sim_argv = [str(self.binaries / "modgud-sim"), "--listen", f"127.0.0.1:{self.sim_port}",
                    "--jitter-ms", "0", "--rate-limits", "off", "--bff-origins", self.origin, "--log-level", "warning"]
        if self.static:
            sim_argv += ["--magic-link-page", f"{self.origin}/magic-login"]   # as Deploy/local/run
        sim = self._spawn(sim_argv, "sim")
        wait_for_port(self.sim_port, sim, "modgud-sim")
        if self.sim_config:
            post_json(f"{self.sim}/dev/config", self.sim_config)
        env = {
            "PATH": "/usr/bin:/bin",
            "BFF_LISTEN": f"127.0.0.1:{self.gateway_port}",
            "BFF_ADMIN_LISTEN": f"127.0.0.1:{self.admin_port}",
            "BFF_PUBLIC_ORIGIN": self.origin,
            "BFF_MODGUD_URL": self.sim,
            "BFF_CLIENT_ID": "bff",
            "BFF_CLIENT_SECRET": "bff-secret",
            "BFF_REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "BFF_TRUSTED_PROXIES": "127.0.0.2/32" if self.tls else "127.0.0.1/32",
        }
        if self.static:
            # The browser talks to the gateway itself, which serves the demo as Deploy/local/run does.
            env.update({"BFF_LISTEN": f"127.0.0.1:{self.front_port}", "BFF_STATIC_ROOT": str(DEMO),
                        "BFF_TRUSTED_PROXIES": ""})
            gateway = self._spawn([str(self.binaries / "modgud-bff")], "gateway", env=env)
            for port, process, name in ((self.redis_port, redis, "redis-server"), (self.front_port, gateway, "modgud-bff")):
                wait_for_port(port, process, name)
            return
        gateway = self._spawn([str(self.binaries / "modgud-bff")], "gateway", env=env)
        conf = self.work / "nginx.conf"
        conf.write_text(self._tls_conf(www) if self.tls else self._http_conf(www))
        nginx_binary = shutil.which("nginx") or "/usr/sbin/nginx"   # /usr/sbin is not on every PATH
        nginx = self._spawn([nginx_binary, "-p", str(self.work), "-c", str(conf), "-g", "daemon off;"], "nginx")
        for port, process, name in ((self.redis_port, redis, "redis-server"), (self.gateway_port, gateway, "modgud-bff"), (self.front_port, nginx, "nginx")):
            wait_for_port(port, process, name)

    def _headers(self, indent: str) -> str:
        return "".join(f'{indent}add_header {name} "{value}" always;\n' for name, value in PAGE_HEADERS.items())

    def _http_conf(self, www: Path) -> str:
        w = self.work
        return f"""
worker_processes 1;
pid {w}/nginx.pid;
error_log {w}/nginx-error.log;
events {{ worker_connections 64; }}
http {{
    include /etc/nginx/mime.types;
    access_log {w}/nginx-access.log;
    client_body_temp_path {w}/body; proxy_temp_path {w}/proxy;
    fastcgi_temp_path {w}/fastcgi; uwsgi_temp_path {w}/uwsgi; scgi_temp_path {w}/scgi;
    server {{
        listen 127.0.0.1:{self.front_port};
        root {www};
        location / {{
            try_files $uri /index.html;
{self._headers(' ' * 12)}        }}
        location /bff/ {{
            proxy_pass http://127.0.0.1:{self.gateway_port};
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header Connection "";
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
        }}
    }}
}}
"""

    def _tls_conf(self, www: Path) -> str:
        """Deploy/nginx/modgud-bff.conf with its site-specific lines rewritten (and
        the TCP variant switched on), a self-signed certificate made for the run."""
        w = self.work
        cert, key = w / "modgud-bff.crt", w / "modgud-bff.key"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-days", "2", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                        "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
        der = subprocess.run(["openssl", "x509", "-in", str(cert), "-pubkey", "-noout"], check=True,
                             capture_output=True).stdout
        spki = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=der, check=True,
                              capture_output=True).stdout
        self.spki = base64.b64encode(hashlib.sha256(spki).digest()).decode()
        for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (w / d).mkdir(exist_ok=True)
        text = SHIPPED_NGINX.read_text()
        replacements = [
            ("user www-data;", ""),
            ("server unix:/run/modgud-bff/public.sock;", "#server unix:/run/modgud-bff/public.sock;"),
            ("#server 127.0.0.1:8080;", f"server 127.0.0.1:{self.gateway_port};"),
            ("#proxy_bind 127.0.0.2;", "proxy_bind 127.0.0.2;"),
            ("listen 443 ssl http2;", f"listen 127.0.0.1:{self.front_port} ssl http2;"),
            ("/etc/nginx/certs/modgud-bff.crt", str(cert)),
            ("/etc/nginx/certs/modgud-bff.key", str(key)),
            ("root /usr/share/nginx/html;", f"root {www};"),
            ("/run/nginx.pid", str(w / "nginx.pid")),
            ("/var/log/nginx/", f"{w}/nginx-"),
            ("/var/lib/nginx/", f"{w}/"),
        ]
        for old, new in replacements:
            if old not in text:
                raise SystemExit(f"Deploy/nginx/modgud-bff.conf no longer holds {old!r}")
            text = text.replace(old, new)
        return text
