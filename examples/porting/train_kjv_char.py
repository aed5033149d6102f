# A nanoGPT configuration (nanoGPT's train.py runs this file through its configurator):
# a small character-level GPT on the KJV text, on the CPU, in float32, sized to train in
# a few minutes on two cores. The same file drives the PyTorch run and the kael run.
out_dir = 'out-kjv-char'
dataset = 'kjv_char'
device = 'cpu'
compile = False
dtype = 'float32'

eval_interval = 50
eval_iters = 20
log_interval = 10
always_save_checkpoint = True
wandb_log = False

gradient_accumulation_steps = 1
batch_size = 12
block_size = 64

n_layer = 4
n_head = 4
n_embd = 128
dropout = 0.0

learning_rate = 1e-3
max_iters = 200
lr_decay_iters = 200
min_lr = 1e-4
beta2 = 0.99
warmup_iters = 20
