" SPDX-License-Identifier: GPL-3.0-or-later
" A mail buffer (filetype mail.maildexcompose): send with CTRL-C CTRL-C (notmuch.el's key) or
" :MaildexSend; addresses complete with CTRL-X CTRL-O.
if exists('b:did_maildex_maildexcompose')
  finish
endif
let b:did_maildex_maildexcompose = 1
setlocal omnifunc=maildex#address#complete
nnoremap <buffer> <silent> <C-c><C-c> :MaildexSend<CR>
