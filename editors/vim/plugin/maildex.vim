" SPDX-License-Identifier: GPL-3.0-or-later
" maildex.vim: read, search, tag and answer mail indexed by maildex, without leaving Vim and without
" Vim waiting for maildex. See :help maildex. Needs Vim 8.2 (jobs, timers, lambdas) or Neovim 0.5.
" Only the commands are here; each calls into autoload/maildex/, loaded when first used. Keys are
" made by the ftplugins of the plugin's own buffers, never here.

if exists('g:loaded_maildex') || (!has('nvim') && (v:version < 802 || !has('job')))
  finish
endif
let g:loaded_maildex = 1
let s:cpo_save = &cpo
set cpo&vim

" :Maildex opens the start page, :Maildex QUERY a list of the threads matching QUERY.
command! -nargs=* Maildex if <q-args> ==# '' | call maildex#hello#open() | else | call maildex#search#open(<q-args>) | endif
command! -nargs=* MaildexTree call maildex#tree#open(<q-args>)
command! -nargs=? MaildexCompose call maildex#compose#new(<q-args>)
command! -range -nargs=+ -complete=customlist,maildex#tag#complete MaildexTag
      \ call maildex#tag#command(<line1>, <line2>, <q-args>)
command! -nargs=? -complete=file MaildexSave call maildex#show#save(<q-args>)
command! MaildexSend call maildex#compose#send()
command! -nargs=+ -complete=file MaildexAttach call maildex#compose#attach(<f-args>)
command! MaildexErrors call maildex#error#open()

let &cpo = s:cpo_save
unlet s:cpo_save
