# gemmad in a container: Debian 12, two stages, a non-root user, the Hugging Face cache as a volume.
# The build stage runs exactly the README's set-up commands (scripts/checks/check_dockerfile.py
# keeps them equal); the runtime stage holds the binary, the example chat template and the shared
# libraries the binary needs (checked against the binary's NEEDED entries by the same script).
#   docker build -t gemmad .
#   docker run -p 8000:8000 -v ~/.cache/huggingface:/home/gemmad/.cache/huggingface gemmad google/gemma-4-E2B-it
FROM debian:12 AS build
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ca-certificates
WORKDIR /src
COPY . .
RUN scripts/setup.sh && scripts/build.sh

FROM debian:12-slim
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      ca-certificates libcurl4 libfmt9 libssl3 \
      libjpeg62-turbo libpng16-16 libwebp7 libwebpdemux2 libgif7 \
      libavformat59 libavcodec59 libavutil57 libswscale6 \
      libsndfile1 libsoxr0 libfftw3-double3 libvorbis0a libogg0 zlib1g \
      libopenmpi3 openmpi-bin \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 1000 gemmad
COPY --from=build /src/build/release/gemmad /usr/local/bin/gemmad
COPY --from=build /src/examples /opt/gemmad/examples
WORKDIR /opt/gemmad
USER gemmad
ENV HF_HOME=/home/gemmad/.cache/huggingface
VOLUME /home/gemmad/.cache/huggingface
EXPOSE 8000
ENTRYPOINT ["gemmad", "serve"]
