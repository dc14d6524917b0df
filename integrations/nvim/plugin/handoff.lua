-- handoff for Neovim (lua/handoff/init.lua): offers the current file at the cursor to your nearby machines.
-- Loaded when this folder is on 'runtimepath'; set vim.g.handoff = { ... } to configure (see init.lua's
-- M.config), or vim.g.handoff_disable = true to keep only the commands.
if vim.g.loaded_handoff then return end
vim.g.loaded_handoff = true

vim.api.nvim_create_user_command("HandoffOffer", function() require("handoff").offer(true) end,
  { desc = "Offer this file at the cursor to your nearby machines" })
vim.api.nvim_create_user_command("HandoffStatus", function()
  local handoff = require("handoff")
  print(handoff.last_error and ("handoff: " .. handoff.last_error) or "handoff: offering this file")
end, { desc = "Say whether the last offer worked" })

if not vim.g.handoff_disable then require("handoff").setup(vim.g.handoff) end
