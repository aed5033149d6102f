#pragma once
/// \file
/// \brief Text for language models (chapter 12): GPT-2's byte-level BPE tokenizer and a
/// decoder for tokens that arrive one at a time.

#include "kael/text/gpt2_tokenizer.h"
#include "kael/text/streaming_decoder.h"
