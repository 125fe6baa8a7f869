/* SPDX-License-Identifier: MIT */
/* golden_expected.h - hashes for tests/golden.c; regenerate with `golden --print`. */
	{ "2MiB/hemem/colloid=0", 0x428514f2b83d8260ull, 0xa3d575a3db087e19ull }, /* 10708 moves */
	{ "2MiB/hemem/colloid=1", 0xa275a2a14d9dd8daull, 0x4330f31fc387c71dull }, /* 4722 moves */
	{ "2MiB/tpp/colloid=0", 0xadb088f602341a2eull, 0x0b352344528f5dddull }, /* 3674 moves */
	{ "2MiB/tpp/colloid=1", 0x4f9ee47f35b5a2e9ull, 0x80e088c740c4ad2bull }, /* 3949 moves */
	{ "2MiB/memtis/colloid=0", 0x19cea7d847a50c98ull, 0x87c390d5abaff9f0ull }, /* 3049 moves */
	{ "2MiB/memtis/colloid=1", 0x0eb1048d5a29f58full, 0x5e93c26fcfa623d2ull }, /* 4930 moves */
	{ "4KiB/hemem/colloid=0", 0xac03d7de26ddb5ddull, 0xe6a51e500d096ff3ull }, /* 41182 moves */
	{ "4KiB/hemem/colloid=1", 0xc6474e08a2b19b5full, 0x1705a634ca6f7980ull }, /* 72486 moves */
	{ "4KiB/tpp/colloid=0", 0xb2823f9e7ffc7238ull, 0x21d5bd178094dd89ull }, /* 21290 moves */
	{ "4KiB/tpp/colloid=1", 0x5ba2073c5fc8a045ull, 0x98a4fae7d57c82d6ull }, /* 14106 moves */
	{ "4KiB/memtis/colloid=0", 0x1840811ecdf73e63ull, 0x750d6cb633b55483ull }, /* 63363 moves */
	{ "4KiB/memtis/colloid=1", 0xef59a73cd1ed0e04ull, 0x37d14bffd911a663ull }, /* 65913 moves */
	{ "4KiBx3/hemem/colloid=0", 0x834b739ea67e045cull, 0x38425a9dd053295bull }, /* 40015 moves */
	{ "4KiBx3/hemem/colloid=1", 0x31075de0f4cbad48ull, 0xf9907c01242047caull }, /* 64172 moves */
	{ "4KiBx3/tpp/colloid=0", 0x07070c4750f211bbull, 0x2b75821487d68bd0ull }, /* 18440 moves */
	{ "4KiBx3/tpp/colloid=1", 0xc02a86c9c96fc016ull, 0xd7400cd34d08c4c3ull }, /* 12134 moves */
	{ "4KiBx3/memtis/colloid=0", 0xf441fcabd0d985f3ull, 0xbc088b8f4c13796aull }, /* 42684 moves */
	{ "4KiBx3/memtis/colloid=1", 0xe364c60910b0668full, 0x160cadaa28bd899eull }, /* 49042 moves */
