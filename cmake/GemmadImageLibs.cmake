# Image codecs for src/mm (DecodeImage, docs/media.md): Debian's libjpeg62-turbo-dev, libpng-dev,
# libwebp-dev (libwebp + libwebpdemux, through pkg-config) and libgif-dev (CMake's FindGIF: giflib
# ships no .pc file in every Debian 12 build). Defines gemmad_image_codecs to link against.
find_package(JPEG REQUIRED)
find_package(PNG REQUIRED)
find_package(GIF 5 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(GEMMAD_WEBP REQUIRED IMPORTED_TARGET libwebp libwebpdemux)

add_library(gemmad_image_codecs INTERFACE)
target_link_libraries(gemmad_image_codecs INTERFACE JPEG::JPEG PNG::PNG GIF::GIF PkgConfig::GEMMAD_WEBP)
