# The app layer of Analyst's image built from Debian packages (`npx analyst deploy build`):
# BASE is a debootstrapped bookworm with e2fsprogs, mount, ca-certificates and Node 20 (no
# registry needed); the context is this checkout's bin/, src/ and production node_modules.
# The runtime settings are the same as deploy/Dockerfile's.
ARG BASE
FROM ${BASE}

WORKDIR /app
COPY app/ /app/

# The data directory of compose.yaml's named volume: a new volume takes this owner.
RUN mkdir -p /data && chown 65534:65534 /data && chmod 0700 /data

# Not root: uid 65534 is also the sandbox user, so the files the server writes into a
# workspace are the sandbox's to change, with no chown (which would need root).
USER 65534:65534
ENV NODE_ENV=production ANALYST_HOST=0.0.0.0 ANALYST_PORT=8200 ANALYST_DATA_DIR=/data HOME=/tmp
EXPOSE 8200
CMD ["node", "bin/analyst.js", "serve"]
