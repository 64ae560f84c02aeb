// Tests of TensorStore: single file, sharded with index, and every inconsistency between them.
#include "io/tensor_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "base/files.h"
#include "io/safetensors_index.h"
#include "io/safetensors_writer.h"

namespace gemmad::io {
namespace {

using ::testing::HasSubstr;

std::string MakeDir(const std::string& name) {
  std::string dir = JoinPath(testing::TempDir(), name);
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

void WriteShard(const std::string& path, const std::vector<std::string>& names) {
  SafetensorsWriter w;
  for (const auto& n : names) w.AddBytes(n, "U8", {2}, "xy");
  ASSERT_TRUE(w.WriteFile(path).ok());
}

// A two-shard checkpoint with tensors a, b (shard 1) and c (shard 2).
std::string MakeSharded(const std::string& name) {
  std::string dir = MakeDir(name);
  WriteShard(JoinPath(dir, ShardFileName(1, 2)), {"a", "b"});
  WriteShard(JoinPath(dir, ShardFileName(2, 2)), {"c"});
  std::map<std::string, std::string> wm = {{"a", ShardFileName(1, 2)}, {"b", ShardFileName(1, 2)},
                                           {"c", ShardFileName(2, 2)}};
  EXPECT_TRUE(WriteStringToFile(JoinPath(dir, kSafetensorsIndexName), BuildSafetensorsIndexJson(wm, 6, 6)).ok());
  return dir;
}

TEST(TensorStoreTest, OpensSingleFile) {
  std::string dir = MakeDir("store_single");
  WriteShard(JoinPath(dir, "model.safetensors"), {"x", "y"});
  auto s = TensorStore::OpenDirectory(dir);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->names(), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(s->index_path().empty());
  ASSERT_TRUE(s->View("y").ok());
  EXPECT_EQ(s->total_tensor_bytes(), 4u);
}

TEST(TensorStoreTest, OpensShardedCheckpoint) {
  auto s = TensorStore::OpenDirectory(MakeSharded("store_sharded"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(s->files().size(), 2u);
  auto v = s->View("c");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(std::string(static_cast<const char*>(v->data), 2), "xy");
  EXPECT_THAT(s->Find("c")->file->path(), HasSubstr(ShardFileName(2, 2)));
}

TEST(TensorStoreTest, MissingShardNamesTheShard) {
  std::string dir = MakeSharded("store_missing_shard");
  std::string shard = JoinPath(dir, ShardFileName(2, 2));
  ASSERT_EQ(std::remove(shard.c_str()), 0);
  auto s = TensorStore::OpenDirectory(dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(s.status().message(), HasSubstr(shard + ": shard named by model.safetensors.index.json"));
}

TEST(TensorStoreTest, IndexAndShardsMustAgree) {
  std::string dir = MakeSharded("store_disagree");
  std::string index = JoinPath(dir, kSafetensorsIndexName);
  // Index lists a tensor no shard holds.
  std::map<std::string, std::string> wm = {{"a", ShardFileName(1, 2)}, {"b", ShardFileName(1, 2)},
                                           {"c", ShardFileName(2, 2)}, {"d", ShardFileName(2, 2)}};
  ASSERT_TRUE(WriteStringToFile(index, BuildSafetensorsIndexJson(wm, 8, 8)).ok());
  EXPECT_THAT(TensorStore::OpenDirectory(dir).status().message(), HasSubstr("tensor 'd' listed in"));
  // Index puts a tensor in the wrong shard.
  wm = {{"a", ShardFileName(1, 2)}, {"b", ShardFileName(2, 2)}, {"c", ShardFileName(2, 2)}};
  ASSERT_TRUE(WriteStringToFile(index, BuildSafetensorsIndexJson(wm, 6, 6)).ok());
  EXPECT_THAT(TensorStore::OpenDirectory(dir).status().message(), HasSubstr("assigns it to"));
  // A shard holds a tensor the index does not list.
  wm = {{"a", ShardFileName(1, 2)}, {"c", ShardFileName(2, 2)}};
  ASSERT_TRUE(WriteStringToFile(index, BuildSafetensorsIndexJson(wm, 6, 6)).ok());
  EXPECT_THAT(TensorStore::OpenDirectory(dir).status().message(), HasSubstr("'b' is not listed"));
  // Unsafe and malformed indexes.
  ASSERT_TRUE(WriteStringToFile(index, R"({"weight_map":{"a":"../x.safetensors"}})").ok());
  EXPECT_THAT(TensorStore::OpenDirectory(dir).status().message(), HasSubstr("unsafe path"));
  ASSERT_TRUE(WriteStringToFile(index, "{").ok());
  EXPECT_THAT(TensorStore::OpenDirectory(dir).status().message(), HasSubstr(index + ": not valid JSON"));
  ASSERT_TRUE(WriteStringToFile(index, R"({"weight_map":{}})").ok());
  EXPECT_THAT(TensorStore::OpenDirectory(dir).status().message(), HasSubstr("weight_map is empty"));
}

TEST(TensorStoreTest, DuplicateAcrossFilesAndEmptyDirectory) {
  std::string dir = MakeDir("store_dup");
  WriteShard(JoinPath(dir, "one.safetensors"), {"a"});
  WriteShard(JoinPath(dir, "two.safetensors"), {"a"});
  auto s = TensorStore::OpenFiles({JoinPath(dir, "one.safetensors"), JoinPath(dir, "two.safetensors")});
  EXPECT_THAT(s.status().message(), HasSubstr("also stored in"));
  EXPECT_THAT(TensorStore::OpenDirectory(MakeDir("store_empty")).status().message(),
              HasSubstr("not a safetensors checkpoint"));
  EXPECT_THAT(TensorStore::OpenDirectory(JoinPath(dir, "nodir")).status().message(), HasSubstr("not a directory"));
}

TEST(SafetensorsIndexTest, ShardNamesAndRoundTrip) {
  EXPECT_EQ(ShardFileName(2, 15), "model-00002-of-00015.safetensors");
  auto idx = ParseSafetensorsIndex(BuildSafetensorsIndexJson({{"t", "s.safetensors"}}, 12, 3), "i.json");
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ(idx->total_size, 12);
  EXPECT_EQ(idx->shards, (std::vector<std::string>{"s.safetensors"}));
}

}  // namespace
}  // namespace gemmad::io
