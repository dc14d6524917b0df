-- handoff for Neovim: the file in the current buffer, at the cursor, becomes this machine's current activity
-- (org.handoff.editor), so `handoff continue` on another machine opens the same file at the same place, in its
-- own clone of the same repository.
--
-- Cheap by design: it runs `handoff editor offer` (one process, one git rev-parse, one D-Bus call) only when the
-- file, the position, the text or its saved state changed since the last offer, never two at once, and hashes
-- the buffer only when its text changed (b:changedtick). Works with Neovim 0.7 and later.
local M = {}

M.config = {
  -- The handoff program.
  command = "handoff",
  -- When to offer.
  events = { "BufEnter", "CursorHold", "CursorHoldI", "BufWritePost", "FocusLost" },
  -- Buffers bigger than this are offered without a digest (the other machine then cannot tell if its copy differs).
  max_hash_bytes = 8 * 1024 * 1024,
}

-- What the last offer said, its job, and whether another is waiting for it to end.
local last_offer, running, again = nil, false, false
-- The digest of each buffer's text, with the changedtick it was taken at.
local digests = {}
-- The last error `handoff` reported, for :HandoffStatus.
M.last_error = nil

-- The SHA-256 of what the buffer would write to its file: lines joined by the file format's line ending, with
-- the last one when 'eol' or 'fixeol' says so. Unmodified, that is the file's own digest.
local function digest(buf)
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local cached = digests[buf]
  if cached and cached.tick == tick then return cached.sha256 end
  local sha256 = nil
  local size = vim.api.nvim_buf_get_offset(buf, vim.api.nvim_buf_line_count(buf))
  if size <= M.config.max_hash_bytes then
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    local ending = ({ dos = "\r\n", mac = "\r" })[vim.bo[buf].fileformat] or "\n"
    local text = table.concat(lines, ending)
    local empty = #lines == 1 and lines[1] == ""
    if not empty and not vim.bo[buf].binary and (vim.bo[buf].eol or vim.bo[buf].fixeol) then
      text = text .. ending
    end
    sha256 = vim.fn.sha256(text)
  end
  digests[buf] = { tick = tick, sha256 = sha256 }
  return sha256
end

-- The arguments of `handoff editor offer` for the current window, or nil when its buffer is not a file on disk.
function M.offer_arguments()
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].buftype ~= "" then return nil end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" or name:match("^%a[%w+.-]*://") then return nil end
  local file = vim.fn.fnamemodify(name, ":p")
  if vim.fn.filereadable(file) == 0 then return nil end
  local cursor = vim.api.nvim_win_get_cursor(0) -- line from 1, byte column from 0
  local arguments = { M.config.command, "editor", "offer", file,
    "--line", tostring(cursor[1]), "--column", tostring(cursor[2] + 1) }
  local sha256 = digest(buf)
  if sha256 then
    table.insert(arguments, "--sha256")
    table.insert(arguments, sha256)
  end
  if vim.bo[buf].modified then table.insert(arguments, "--modified") end
  return arguments
end

-- Offers the current file and place, unless that is what was offered last (`force`: offer anyway).
function M.offer(force)
  local arguments = M.offer_arguments()
  if not arguments then return end
  local key = table.concat(arguments, "\0")
  if key == last_offer and not force then return end
  if running then
    again = true
    return
  end
  last_offer, running = key, true
  local errors = {}
  local ok, job = pcall(vim.fn.jobstart, arguments, {
    stderr_buffered = true,
    on_stderr = function(_, data) errors = data end,
    on_exit = function(_, code)
      running = false
      M.last_error = code ~= 0 and table.concat(errors, "\n") or nil
      if again then
        again = false
        vim.schedule(M.offer)
      end
    end,
  })
  if not ok or job <= 0 then
    running = false
    M.last_error = "cannot run " .. M.config.command
  end
end

-- Starts offering on `config.events`; `options` overrides `config`.
function M.setup(options)
  M.config = vim.tbl_extend("force", M.config, options or {})
  local group = vim.api.nvim_create_augroup("handoff", { clear = true })
  vim.api.nvim_create_autocmd(M.config.events, { group = group, callback = function() M.offer() end })
end

return M
