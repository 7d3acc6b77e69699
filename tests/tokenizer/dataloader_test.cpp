// The data loader over a file whose token i is i, so each batch shows where it was read from.
#include "adjoint/dataloader.hpp"
#include "adjoint/token_file.hpp"
#include "test_support.hpp"

namespace adjoint::test {
namespace {

// A token file holding 0, 1, ..., count-1.
std::filesystem::path counting_file(const TempDir& dir, int count) {
  std::vector<int> tokens(count);
  for (int i = 0; i < count; ++i) tokens[i] = i;
  write_token_file(dir / "count.bin", tokens, 65536);
  return dir / "count.bin";
}

// Expects the batch that starts at token `start` (B*T inputs from start, targets one later).
void expect_batch_at(const DataLoader& loader, int start) {
  const int n = loader.batch_size() * loader.sequence_length();
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(loader.inputs()[i], start + i) << "input " << i << " of the batch at " << start;
    ASSERT_EQ(loader.targets()[i], start + i + 1) << "target " << i << " of the batch at " << start;
  }
}

TEST(DataLoader, ReadsConsecutiveBatchesAndWraps) {
  TempDir dir;
  DataLoader loader(counting_file(dir, 20), 2, 3, 65536);  // B*T = 6
  EXPECT_EQ(loader.num_tokens(), 20u);
  EXPECT_EQ(loader.num_batches(), 3u);  // (20 - 1) / 6
  for (const int start : {0, 6, 12}) {
    EXPECT_EQ(loader.position(), static_cast<std::size_t>(start));
    loader.next_batch();
    expect_batch_at(loader, start);
  }
  EXPECT_EQ(loader.position(), 18u);
  loader.next_batch();  // 18 + 6 + 1 > 20: wraps before reading
  expect_batch_at(loader, 0);
  EXPECT_EQ(loader.position(), 6u);
}

// A uint32 file (a vocabulary over 65536 tokens) gives its tokens unchanged.
TEST(DataLoader, ReadsUint32Files) {
  TempDir dir;
  const std::vector<int> tokens = {128000, 70000, 5, 128255, 65536, 9};
  write_token_file(dir / "wide.bin", tokens, 128256);
  DataLoader loader(dir / "wide.bin", 1, 4, 128256);
  loader.next_batch();
  EXPECT_EQ(std::vector<int>(loader.inputs(), loader.inputs() + 4), (std::vector<int>{128000, 70000, 5, 128255}));
  EXPECT_EQ(std::vector<int>(loader.targets(), loader.targets() + 4), (std::vector<int>{70000, 5, 128255, 65536}));
}

// A masked file: a target whose mask byte is 0 has no loss (kernels::no_target); inputs are unchanged.
TEST(DataLoader, MaskedTargetsHaveNoTarget) {
  TempDir dir;
  write_token_file(dir / "m.bin", std::vector<int>{10, 11, 12, 13, 14, 15, 16}, 50257,
                   std::vector<std::uint8_t>{0, 0, 1, 1, 0, 1, 1});
  DataLoader loader(dir / "m.bin", 2, 3, 50257);
  loader.next_batch();
  EXPECT_EQ(std::vector<int>(loader.inputs(), loader.inputs() + 6), (std::vector<int>{10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(std::vector<int>(loader.targets(), loader.targets() + 6), (std::vector<int>{-1, 12, 13, -1, 15, 16}));
}

TEST(DataLoader, LastBatchMayEndAtTheLastToken) {
  TempDir dir;
  DataLoader loader(counting_file(dir, 13), 3, 2, 65536);  // 2 batches use all 13 tokens
  EXPECT_EQ(loader.num_batches(), 2u);
  loader.next_batch();
  loader.next_batch();
  expect_batch_at(loader, 6);
  loader.next_batch();
  expect_batch_at(loader, 0);
}

TEST(DataLoader, PositionCanBeRestored) {
  TempDir dir;
  DataLoader loader(counting_file(dir, 20), 2, 3, 65536);
  loader.set_position(5);
  loader.next_batch();
  expect_batch_at(loader, 5);
  EXPECT_EQ(loader.position(), 11u);
  loader.set_position(19);  // valid, but too close to the end: the next batch wraps
  loader.next_batch();
  expect_batch_at(loader, 0);
  loader.reset();
  EXPECT_EQ(loader.position(), 0u);
  EXPECT_THROW(loader.set_position(20), std::out_of_range);
  EXPECT_EQ(loader.position(), 0u);
}

TEST(DataLoader, RejectsTooFewTokensAndBadShapes) {
  TempDir dir;
  const std::filesystem::path file = counting_file(dir, 6);
  EXPECT_NO_THROW(DataLoader(file, 1, 5, 65536));
  try {
    DataLoader(file, 2, 3, 65536);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), file.string() + ": 6 tokens are too few for one batch of B*T+1 = 7");
  }
  EXPECT_THROW(DataLoader(file, 0, 3, 65536), std::invalid_argument);
  EXPECT_THROW(DataLoader(file, 2, -1, 65536), std::invalid_argument);
  EXPECT_THROW(DataLoader(dir / "missing.bin", 1, 1, 65536), std::runtime_error);
}

// Every id is checked against the vocabulary when the file is loaded, not when its batch comes up.
TEST(DataLoader, RejectsTokenIdsOutsideTheVocabularyAtLoad) {
  TempDir dir;
  const std::filesystem::path file = counting_file(dir, 20);  // ids 0..19
  EXPECT_NO_THROW(DataLoader(file, 1, 5, 20));
  try {
    DataLoader(file, 1, 5, 17);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), file.string() + ": token 17 at position 17 is outside the model's "
                                                     "vocabulary of 17 tokens");
  }
}

}  // namespace
}  // namespace adjoint::test
